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
