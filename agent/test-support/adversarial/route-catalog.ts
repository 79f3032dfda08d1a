import type { JsonSchema } from "./hostile-input";

/** One method on one path, as the fuzzer needs it: where its parameters go and what body it takes. */
export interface RouteOperation {
  method: string;
  /** OpenAPI form: `/api/learn/sessions/{sessionId}/detail`. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  body: JsonSchema | undefined;
  /** Whether the route has a description at all; undescribed ones are fuzzed with generic input. */
  described: boolean;
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

const HTTP_METHODS = new Set(["get", "post", "put", "delete", "patch", "head", "options", "trace", "query"]);

/** Fastify's `/a/:id/*` as OpenAPI's `/a/{id}/{*}` (the form @fastify/swagger writes). */
export function openApiPathOf(fastifyUrl: string): string {
  return fastifyUrl.replace(/:([A-Za-z]+)/g, "{$1}").replace(/\*$/, "{*}");
}

/**
 * Every route to fuzz: each operation the OpenAPI description lists, plus any route the app
 * registered that the description leaves out (the description itself, the WebSocket), so a new
 * route is covered the day it is added, described or not.
 */
export function routeCatalog(doc: OpenApiDocument, registered: ReadonlyArray<{ method: string; url: string }>): RouteOperation[] {
  const operations: RouteOperation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!HTTP_METHODS.has(method)) continue;
      const parameters = operation.parameters ?? [];
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((parameter) => parameter.in === "path").map((parameter) => parameter.name),
        queryParams: parameters.filter((parameter) => parameter.in === "query").map((parameter) => parameter.name),
        body: operation.requestBody?.content?.["application/json"]?.schema,
        described: true,
      });
    }
  }
  for (const route of registered) {
    const path = openApiPathOf(route.url);
    if (operations.some((operation) => operation.path === path && operation.method === route.method)) continue;
    // HEAD twins of GET routes are fastify's own; the GET is fuzzed.
    if (route.method === "HEAD" && operations.some((operation) => operation.path === path && operation.method === "GET")) continue;
    operations.push({
      method: route.method,
      path,
      pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string),
      queryParams: [],
      body: undefined,
      described: false,
    });
  }
  return operations;
}

/** The request target for an operation with its path parameters filled in as given (already encoded). */
export function targetOf(operation: RouteOperation, params: Readonly<Record<string, string>>, query = ""): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => params[name] ?? "x");
  return `${path}${query}`;
}
