#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader (the repo runs TS directly; no build step).
import { register } from "tsx/esm/api";
register();
await import("../src/main.ts");
