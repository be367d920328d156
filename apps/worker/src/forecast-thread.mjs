// The start forecast's thread entry (forecast.ts): worker threads do not inherit the parent's tsx
// loader, so this plain module registers it and then loads the TypeScript body.
import { register } from "tsx/esm/api";

register();
await import("./forecast-thread-body.ts");
