import { budgetRouter } from "./routers/budget";
import { clusterRouter } from "./routers/cluster";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  cluster: clusterRouter,
  budget: budgetRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
