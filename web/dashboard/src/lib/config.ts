// Runtime configuration, read from the environment when a request is served, so one build
// (one Docker image) fits every install: the API and hub addresses as both apps read them
// (@supportdesk/shared/config), plus the widget's address for the embed snippet. Only server
// code calls `runtimeConfig()` (the root layout, rendered per request, and the proxy); it hands
// the values to the client as props.

import { type ApiConfig, apiConfigFrom, type Env, publicUrl } from "@supportdesk/shared/config";

export const DEFAULT_WIDGET_URL = "http://localhost:3001";

export interface RuntimeConfig extends ApiConfig {
  /** The chat widget app, for the embed snippet; defaults to http://localhost:3001. */
  widgetUrl: string;
}

export function configFrom(env: Env): RuntimeConfig {
  return { ...apiConfigFrom(env), widgetUrl: publicUrl(env, "WIDGET_URL", DEFAULT_WIDGET_URL) };
}

export function runtimeConfig(): RuntimeConfig {
  return configFrom(process.env);
}
