"use client";

// Client-side services for every page: the runtime configuration (from the server, per
// request), the typed API client bound to the session's tokens, and TanStack Query, which holds
// all server state.

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createContext, type ReactNode, useContext, useEffect, useState } from "react";
import { type Api, createApi } from "@/api/client";
import { ApiError } from "@/api/errors";
import type { RuntimeConfig } from "@/lib/config";
import { endSession, endWorkspaceAccess } from "@/session/endAccess";
import { tokenSubject } from "@/session/renewal";
import { getSession, subscribe } from "@/session/store";

interface Services {
  api: Api;
  config: RuntimeConfig;
}

const ServicesContext = createContext<Services | null>(null);

function useServices(): Services {
  const services = useContext(ServicesContext);
  if (!services) throw new Error("Providers missing above this component");
  return services;
}

export function useApi(): Api {
  return useServices().api;
}

export function useConfig(): RuntimeConfig {
  return useServices().config;
}

function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        // Client errors (4xx) will not change by asking again; the network and 5xx may.
        retry: (failures, error) =>
          failures < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
      },
      mutations: { retry: false },
    },
  });
}

export function Providers({ config, children }: { config: RuntimeConfig; children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [api] = useState(() =>
    createApi(config.apiUrl, {
      token: (credential) => {
        const session = getSession();
        return credential === "user" ? session.userToken : (session.workspace?.token ?? null);
      },
      unauthorized: () => endSession(),
      accessEnded: (detail) => {
        const workspace = getSession().workspace;
        if (workspace) endWorkspaceAccess(queryClient, workspace.id, detail);
      },
    }),
  );
  // Whoever signs in next (or nobody) never sees the previous person's cached data. A renewed
  // token of the same account changes nothing.
  useEffect(() => {
    const accountOf = (token: string | null) => tokenSubject(token) ?? token;
    let account = accountOf(getSession().userToken);
    return subscribe(() => {
      const next = accountOf(getSession().userToken);
      if (next === account) return;
      account = next;
      queryClient.getQueryCache().clear();
    });
  }, [queryClient]);
  return (
    <ServicesContext.Provider value={{ api, config }}>
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </ServicesContext.Provider>
  );
}
