/**
 * The security headers the dashboard's files are served with, on both runtimes: the embedded
 * listener sends them itself, and CloudFront's response headers policy sends the same on AWS
 * (lib/dashboard-site.ts). The page loads only its own script and stylesheet; QR codes are
 * `data:` images; every call goes to its own origin.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const DASHBOARD_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
};

/** The dashboard's page, which names every other file with its content's hash (`?v=`). */
export const DASHBOARD_PAGE = "index.html";

/**
 * How browsers keep the dashboard's files, on both runtimes: the page is asked for again each
 * visit, so a new version reaches a returning person at once; the files it names by their hash
 * are kept for a year.
 */
export const dashboardCacheControl = (name: string): string =>
  name === DASHBOARD_PAGE ? "no-cache" : "public, max-age=31536000, immutable";
