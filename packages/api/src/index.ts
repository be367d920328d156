export { appRouter, createCaller, type AppRouter } from "./root";
export { trpcResponseMeta } from "./trpc";
export type { Context, SessionUser, Role } from "./trpc";
export type { BudgetTreeNodeView, BudgetTreeResult } from "./routers/budget";
export { crossSiteRefusal } from "./same-origin";
export { enterCalls } from "./request-gate";
export { TooManyRequests } from "./too-many-requests";
