"use client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { useState, type ReactNode } from "react";
import superjson from "superjson";
import { LIMITS } from "@tranche/contracts";
import type { AppRouter } from "@tranche/api";
import { TRPCProvider } from "../lib/trpc";

/**
 * Errors a retry cannot fix (a job that does not exist, a refused call) show at once, not after 7 s of
 * retries; so does "too many requests", which a retry would only prolong.
 */
const FINAL = new Set(["NOT_FOUND", "FORBIDDEN", "UNAUTHORIZED", "BAD_REQUEST", "CONFLICT", "TOO_MANY_REQUESTS"]);
const retry = (failures: number, error: unknown) =>
  !FINAL.has(String((error as { data?: { code?: unknown } } | null)?.data?.code)) && failures < 3;

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 2_000, retry } } }));
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: "/api/trpc", transformer: superjson, maxItems: LIMITS.trpcBatchCalls })],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
