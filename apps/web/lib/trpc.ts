"use client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import type { AppRouter } from "@tranche/api";

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();
