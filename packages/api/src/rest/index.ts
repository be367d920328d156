export { handleRest, errorResponse, type RestDeps } from "./handler";
export { buildOpenApi } from "./openapi";
