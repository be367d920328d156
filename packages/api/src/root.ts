import { accountRouter, adminRouter } from "./routers/admin";
import { budgetRouter } from "./routers/budget";
import { clusterRouter } from "./routers/cluster";
import { jobRouter } from "./routers/job";
import { meRouter } from "./routers/me";
import { measureRouter } from "./routers/measure";
import { nodeRouter } from "./routers/node";
import { notificationRouter } from "./routers/notification";
import { queueRouter } from "./routers/queue";
import { signInsRouter } from "./routers/sign-ins";
import { tokenRouter } from "./routers/token";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  me: meRouter,
  cluster: clusterRouter,
  budget: budgetRouter,
  job: jobRouter,
  queue: queueRouter,
  node: nodeRouter,
  notification: notificationRouter,
  token: tokenRouter,
  measure: measureRouter,
  admin: adminRouter,
  account: accountRouter,
  signIns: signInsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
