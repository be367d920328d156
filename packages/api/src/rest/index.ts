export { handleRest, type RestDeps } from "./handler";
export { errorResponse } from "./io";
export { buildOpenApi } from "./openapi";
export { isSessionUpgrade, proxySessionUpgrade } from "./session-upgrade";
