/**
 * A route of the service at a `--url`. The base is where the service's routes hang: its origin
 * (`http://127.0.0.1:8787`), or a path below one, as API Gateway's stage (`…/prod/`) or a
 * proxy's prefix. AWS's ApiUrl output ends in a slash and a hand-typed URL often does not: both
 * name the same service, so the route is joined to the base's path with exactly one slash.
 */
export const serviceUrl = (base: string, route: string, query?: URLSearchParams): URL => {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new Error(`--url must be the service's http or https address: ${JSON.stringify(base)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`--url must be the service's http or https address: ${JSON.stringify(base)}`);
  }
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${route.replace(/^\/+/, "")}`;
  url.search = query ? query.toString() : "";
  url.hash = "";
  return url;
};
