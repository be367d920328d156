// Administration: the tree's shape, members and managers, users, OIDC mapping, clusters, enrollment, audit.
export * from "./audit";
export * from "./audit-scope";
export * from "./tree-admin";
export * from "./tree-scope";
export * from "./people";
export * from "./users";
export * from "./user-page";
export * from "./oidc-rules";
export * from "./clusters";
export * from "./preview-share";
export * from "./lab-import";
export * from "./lab-export";
