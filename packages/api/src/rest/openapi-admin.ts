import {
  auditQueryInput,
  createClusterInput,
  createTreeNodeInput,
  createUserInput,
  issueEnrollmentTokenInput,
  oidcRuleInput,
  previewAllocationInput,
  putAllocationInput,
  treeNodePersonInput,
  updateClusterPolicyInput,
  updateTreeNodeInput,
  updateUserInput,
} from "@tranche/contracts";
import { errorResponses, queryParams, schema } from "./openapi-parts";

// The administration routes of the OpenAPI document: request bodies come from the same zod schemas
// the routes parse with, so the document cannot drift from what the server accepts.

export const adminSchemas = () => ({
  CreateCluster: schema(createClusterInput, "input"),
  UpdateClusterPolicy: schema(updateClusterPolicyInput, "input"),
  CreateTreeNode: schema(createTreeNodeInput, "input"),
  UpdateTreeNode: schema(updateTreeNodeInput, "input"),
  PutAllocation: schema(putAllocationInput, "input"),
  PreviewAllocation: schema(previewAllocationInput, "input"),
  TreeNodePerson: schema(treeNodePersonInput, "input"),
  CreateUser: schema(createUserInput, "input"),
  UpdateUser: schema(updateUserInput, "input"),
  IssueEnrollmentToken: schema(issueEnrollmentTokenInput, "input"),
  OidcRule: schema(oidcRuleInput, "input"),
});

const body = (ref: string, required = true) => ({
  required,
  content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } },
});
const ok = (description: string, properties: Record<string, unknown> = {}) => ({
  description,
  content: { "application/json": { schema: { type: "object", properties } } },
});
const treePathParam = {
  name: "path",
  in: "path",
  required: true,
  description: "A tree path such as lab/vision/video; its slashes may be sent as they are or as %2F",
  schema: { type: "string" },
};
const personParam = {
  name: "email",
  in: "query",
  required: true,
  description: "The person's e-mail (a DELETE has no body)",
  schema: { type: "string", format: "email" },
};
const named = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});

type Op = Record<string, unknown>;
type Paths = Record<string, Record<string, Op>>;

function adminPaths(): Paths {
  const auditParams = queryParams(auditQueryInput);
  return {
    "/clusters": {
      post: {
        summary: "Create a cluster with its GPU type and protection cap (admins); the tree's root holds all of it",
        operationId: "createCluster",
        requestBody: body("CreateCluster"),
        responses: { "201": ok("The cluster", { cluster: { type: "object" } }), ...errorResponses([400, 401, 403, 409]) },
      },
    },
    "/clusters/{name}": {
      patch: {
        summary:
          "Set a cluster's policy (admins): after how long a job flagged as likely squatting loses its protection (null: never, the default), and the debug lane's reserve, per-user GPUs and victim limit (null: the default); fields left out stay as they are",
        operationId: "updateClusterPolicy",
        parameters: [named("name", "Cluster name")],
        requestBody: body("UpdateClusterPolicy"),
        responses: {
          "200": ok("The cluster's policy", { cluster: { type: "object" } }),
          ...errorResponses([400, 401, 403, 404]),
        },
      },
    },
    "/clusters/{name}/enrollment-tokens": {
      post: {
        summary: "Issue a one-time enrollment token for a new host (operators); shown once, hashed at rest",
        operationId: "issueEnrollmentToken",
        parameters: [named("name", "Cluster name")],
        requestBody: body("IssueEnrollmentToken", false),
        responses: {
          "201": ok("The token (shown only now) and when it expires", {
            token: { type: "string" },
            expiresAt: { type: "string", format: "date-time" },
            id: { type: "string" },
            nodeName: { type: ["string", "null"] },
          }),
          ...errorResponses([400, 401, 403, 404]),
        },
      },
      get: {
        summary: "Enrollment tokens of a cluster with their state and the host that used each (operators)",
        operationId: "listEnrollmentTokens",
        parameters: [named("name", "Cluster name")],
        responses: {
          "200": ok("Tokens, newest first (never the token itself)", { tokens: { type: "array" } }),
          ...errorResponses([401, 403]),
        },
      },
    },
    "/budgets": {
      post: {
        summary:
          "Create a tree node under a parent (admins; managers under a node they manage or below it); budgets are the leaves",
        description:
          'Body `{ "parent": "lab/x", "name": "y" }`. Refused: an unknown parent, a sibling of the same name, a parent that is a budget with jobs or members.',
        operationId: "createTreeNode",
        requestBody: body("CreateTreeNode"),
        responses: { "201": ok("The node", { node: { type: "object" } }), ...errorResponses([400, 401, 403, 409]) },
      },
    },
    "/budgets/{path}": {
      patch: {
        summary:
          "Rename and/or move a tree node with its subtree (admins; managers strictly inside their subtree, both ends of a move)",
        description:
          "Refused: a move under itself (a cycle), a duplicate sibling name, shares that would exceed 100% under the new parent.",
        operationId: "updateTreeNode",
        parameters: [treePathParam],
        requestBody: body("UpdateTreeNode"),
        responses: { "200": ok("The node", { node: { type: "object" } }), ...errorResponses([400, 401, 403, 404, 409]) },
      },
      delete: {
        summary:
          "Archive a tree node (admins; managers strictly inside their subtree); refused with the count while it has children or pending or running jobs",
        operationId: "archiveTreeNode",
        parameters: [treePathParam],
        responses: { "200": ok("The archived node", { node: { type: "object" } }), ...errorResponses([401, 403, 404, 409]) },
      },
    },
    "/budgets/{path}/allocation": {
      put: {
        summary: "Set a node's share of its parent's allocation on a cluster (managers in their subtree, admins)",
        description:
          "`share` is a fraction (0..1, at most 6 decimals) of the parent's allocation; siblings may sum to at most 1.",
        operationId: "putAllocation",
        parameters: [treePathParam],
        requestBody: body("PutAllocation"),
        responses: {
          "200": ok("The share in force", { allocation: { type: "object" } }),
          ...errorResponses([400, 401, 403, 404]),
        },
      },
    },
    "/budgets/{path}/allocation/what-if": {
      post: {
        summary: "Preview what a share would change, storing nothing (managers in their subtree, admins)",
        description:
          "Runs the scheduler's cycle on the cluster as it stands and as it would with this share (as if it had held for the whole lookback window): the first `limit` jobs of the queue before and after, whether each would start now, and the affected budgets' ratios. One at a time per person and a few a minute (TRANCHE_WHAT_IF_PER_MINUTE); past that 429 with Retry-After.",
        operationId: "previewAllocation",
        parameters: [treePathParam],
        requestBody: body("PreviewAllocation"),
        responses: {
          "200": ok("The preview", { preview: { type: "object" } }),
          ...errorResponses([400, 401, 403, 404, 429]),
        },
      },
    },
    "/budgets/{path}/members": {
      get: {
        summary: "Who may charge a budget, by e-mail and name (admins; managers inside their subtree)",
        operationId: "listBudgetMembers",
        parameters: [treePathParam],
        responses: {
          "200": ok("The node's path and its members", { path: { type: "string" }, members: { type: "array" } }),
          ...errorResponses([401, 403, 404]),
        },
      },
      delete: {
        summary: "Stop a user charging a budget (admins; managers inside their subtree)",
        operationId: "removeBudgetMember",
        parameters: [treePathParam, personParam],
        responses: {
          "200": ok("The membership removed; jobsLeft: the person's jobs still waiting or running there, which go on", {
            member: { type: "object" },
          }),
          ...errorResponses([400, 401, 403, 404]),
        },
      },
      post: {
        summary: "Let a user charge a budget (admins; managers inside their subtree)",
        operationId: "addBudgetMember",
        parameters: [treePathParam],
        requestBody: body("TreeNodePerson"),
        responses: { "201": ok("The membership", { member: { type: "object" } }), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    "/budgets/{path}/managers": {
      get: {
        summary: "Who manages a subtree, by e-mail and name (admins; managers inside their subtree)",
        operationId: "listTreeManagers",
        parameters: [treePathParam],
        responses: {
          "200": ok("The node's path and its managers", { path: { type: "string" }, managers: { type: "array" } }),
          ...errorResponses([401, 403, 404]),
        },
      },
      delete: {
        summary: "Stop a manager managing a subtree (admins)",
        operationId: "removeTreeManager",
        parameters: [treePathParam, personParam],
        responses: { "200": ok("The manager removed", { manager: { type: "object" } }), ...errorResponses([400, 401, 403, 404]) },
      },
      post: {
        summary: "Make a manager manage a subtree (admins)",
        operationId: "addTreeManager",
        parameters: [treePathParam],
        requestBody: body("TreeNodePerson"),
        responses: { "201": ok("The manager", { manager: { type: "object" } }), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    "/users": {
      get: {
        summary: "Every user with role and state (admins)",
        operationId: "listUsers",
        responses: { "200": ok("Users", { users: { type: "array" } }), ...errorResponses([401, 403]) },
      },
      post: {
        summary: "Create a user (admins); answers a one-time set-password link, valid 72 hours",
        description:
          "Hand the link to the person; nothing is mailed, and no password is stored or logged. Only a hash of the link's token is kept.",
        operationId: "createUser",
        requestBody: body("CreateUser"),
        responses: {
          "201": ok("The user and their link", {
            user: { type: "object" },
            setPasswordUrl: { type: "string" },
            expiresAt: { type: "string", format: "date-time" },
          }),
          ...errorResponses([400, 401, 403, 409]),
        },
      },
    },
    "/users/{id}": {
      patch: {
        summary: "Change a user's name or role, or disable them (admins); a disabled user's tokens and sessions stop at once",
        operationId: "updateUser",
        parameters: [named("id", "User id")],
        requestBody: body("UpdateUser"),
        responses: { "200": ok("The user", { user: { type: "object" } }), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    "/users/{id}/password-link": {
      post: {
        summary: "A new one-time set-password link for a user (admins); their earlier unused link ends",
        operationId: "issuePasswordLink",
        parameters: [named("id", "User id")],
        responses: {
          "201": ok("The link, to hand the user", { setPasswordUrl: { type: "string" }, expiresAt: { type: "string" } }),
          ...errorResponses([401, 403, 404]),
        },
      },
    },
    "/oidc-rules": {
      get: {
        summary: "OIDC mapping rules (admins)",
        operationId: "listOidcRules",
        responses: { "200": ok("Rules", { rules: { type: "array" } }), ...errorResponses([401, 403]) },
      },
      post: {
        summary: "Add an OIDC mapping rule: an e-mail domain or group claim gives a role and budgets at first sign-in (admins)",
        operationId: "createOidcRule",
        requestBody: body("OidcRule"),
        responses: { "201": ok("The rule", { rule: { type: "object" } }), ...errorResponses([400, 401, 403, 409]) },
      },
    },
    "/oidc-rules/{id}": {
      delete: {
        summary: "Remove an OIDC mapping rule (admins)",
        operationId: "deleteOidcRule",
        parameters: [named("id", "Rule id")],
        responses: { "200": ok("Removed"), ...errorResponses([401, 403, 404]) },
      },
    },
    "/audit": {
      get: {
        summary: "The audit log, newest first: filter by actor, action, target and time; page with before",
        description:
          "Admins read every entry; operators those about hosts, clusters and enrollment tokens; managers those about the tree nodes and budgets of the subtrees they manage; researchers none (403). For the next page, pass the last entry's id as before.",
        operationId: "listAudit",
        parameters: auditParams,
        responses: { "200": ok("Entries", { entries: { type: "array" } }), ...errorResponses([400, 401, 403]) },
      },
    },
    "/admin/export": {
      get: {
        summary: "The lab as a lab file (admins): every user, every tree node with its managers, members and shares",
        description:
          "The format POST /admin/import reads, to edit and import again. ?cluster= keeps the shares on that cluster only.",
        operationId: "exportLab",
        parameters: [
          {
            name: "cluster",
            in: "query",
            required: false,
            description: "Shares on this cluster only",
            schema: { type: "string" },
          },
        ],
        responses: {
          "200": ok("The lab file", { lab: { type: "object" } }),
          ...errorResponses([400, 401, 403, 404]),
        },
      },
    },
    "/admin/import": {
      post: {
        summary: "Set up users, the tree, managers, members and shares from one lab file, all or nothing (admins)",
        description:
          "The body is a lab file (docs/admin-guide.md, docs/examples/lab.yaml) as YAML (content type application/yaml) or JSON, at most 1 MiB. Every problem is answered at once (400, each issue naming its place, such as tree[3].shares.h100) and then nothing changes. Users and tree nodes that exist are matched, not duplicated; nothing the file does not name is removed. ?dryRun=true answers what would change (200) and changes nothing.",
        operationId: "importLab",
        parameters: [
          { name: "dryRun", in: "query", required: false, description: "true: change nothing", schema: { type: "boolean" } },
        ],
        requestBody: {
          required: true,
          content: { "application/yaml": { schema: { type: "string" } }, "application/json": { schema: { type: "object" } } },
        },
        responses: {
          "201": ok("What changed, and a set-password link for each user created", { import: { type: "object" } }),
          "200": ok("Dry run: what would change", { import: { type: "object" } }),
          ...errorResponses([400, 401, 403, 413]),
        },
      },
    },
  };
}

/** The job routes' paths with the admin operations added (a path both use, /clusters, gets both). */
export function withAdminPaths<P extends Record<string, object>>(paths: P): P & Paths {
  const out: Record<string, object> = { ...paths };
  for (const [path, ops] of Object.entries(adminPaths())) out[path] = { ...(out[path] ?? {}), ...ops };
  return out as P & Paths;
}
