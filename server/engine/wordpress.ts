/**
 * Whether an answer comes from WordPress, by the traces it leaves in headers (the REST API link, pingback, its
 * cookies) and in HTML (the generator tag, wp-content and wp-includes paths). Pure.
 */
export function detectWordPress(headers: Record<string, string>, body: string): boolean {
  if (/rel="?https:\/\/api\.w\.org\/"?/i.test(headers.link ?? "")) return true;
  if (/xmlrpc\.php/i.test(headers["x-pingback"] ?? "")) return true;
  if (/wordpress/i.test(headers["x-powered-by"] ?? "")) return true;
  if (/(?:^|[\s,;])(?:wordpress_|wp-settings-)/i.test(headers["set-cookie"] ?? "")) return true;
  if (/<meta[^>]+name=["']generator["'][^>]+content=["']WordPress/i.test(body)) return true;
  return /\/wp-(?:content|includes)\/[\w./-]+/i.test(body);
}
