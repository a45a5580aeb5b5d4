// Runtime configuration: the API and hub addresses, read from the environment when a request
// is served (@supportdesk/shared/config), so one build (one Docker image) fits every install.
// Only server code calls this (pages and route handlers that opt into dynamic rendering).

import { type ApiConfig, apiConfigFrom } from "@supportdesk/shared/config";

export type RuntimeConfig = ApiConfig;

export function runtimeConfig(): RuntimeConfig {
  return apiConfigFrom(process.env);
}
