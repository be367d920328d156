import { QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, type TRPCLink } from "@trpc/client";
import { observable } from "@trpc/server/observable";
import { createTRPCOptionsProxy, type TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { createElement, type ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import type { AppRouter } from "@tranche/api";
import { TRPCProvider } from "../../lib/trpc";

/** A query a rendered component asked for: its procedure ("job.rows") and input. */
export interface Asked {
  path: string;
  input: unknown;
}

/**
 * Renders a page's component to HTML as the server first renders it, with the answers `seed` put in the
 * query cache for the queries it names; nothing is fetched (a query not seeded stays loading). `asked` is
 * every query the component made, so a test sees which procedure it reads and with what input.
 */
export function renderWithAnswers(
  element: ReactElement,
  seed: (api: TRPCOptionsProxy<AppRouter>, qc: QueryClient) => void,
): { html: string; asked: Asked[] } {
  const asked: Asked[] = [];
  let seeding = true;
  // Every query a component makes is built (found or added) in the cache: recorded there.
  const queryCache = new QueryCache();
  const build = queryCache.build.bind(queryCache);
  queryCache.build = ((client, options, state) => {
    const [path, opts] = options.queryKey as unknown as [string[], { input?: unknown }?];
    const q = { path: path.join("."), input: opts?.input };
    if (!seeding && !asked.some((a) => JSON.stringify(a) === JSON.stringify(q))) asked.push(q);
    return build(client, options, state);
  }) as QueryCache["build"];
  const queryClient = new QueryClient({ queryCache, defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  // A link that never answers: in a server render no query is sent, and one that were would stay loading.
  const never: TRPCLink<AppRouter> = () => () => observable(() => () => undefined);
  const trpcClient = createTRPCClient<AppRouter>({ links: [never] });
  seed(createTRPCOptionsProxy<AppRouter>({ client: trpcClient, queryClient }), queryClient);
  seeding = false;
  const html = renderToStaticMarkup(
    createElement(
      QueryClientProvider,
      { client: queryClient },
      createElement(TRPCProvider, { trpcClient, queryClient, children: element }),
    ),
  );
  return { html, asked };
}
