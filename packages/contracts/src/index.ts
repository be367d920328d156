// @tranche/contracts: zod schemas shared by every entry point (one export line per area).
export * from "./limits";
export * from "./input";
export * from "./read-body";
export * from "./duration";
export * from "./job-id";
export * from "./job";
export * from "./job-name";
export * from "./job-rules";
export * from "./notification";
export * from "./budget";
export * from "./node";
export * from "./token";
export * from "./api-error";
export * from "./agent";
export * from "./logs";
export * from "./admin";
export * from "./session";
