// Serves the compiled loader with this server's runtime settings around it: the loader reads
// `__SUPPORTDESK__` as a function parameter, so no global is added and the API address comes
// from the environment at request time, not from the build.

export interface LoaderConfig {
  apiUrl: string;
}

export function renderLoader(source: string, config: LoaderConfig): string {
  // JSON is a JS expression; escaping "<" keeps it inert even if someone inlines the script.
  const json = JSON.stringify({ apiUrl: config.apiUrl }).replace(/</g, "\\u003c");
  return `(function(__SUPPORTDESK__){${source.trim()}\n})(${json});\n`;
}
