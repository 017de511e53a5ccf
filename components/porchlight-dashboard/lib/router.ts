/** The dashboard's addresses, all under /dashboard/, read from and written to the browser's history. */
export const BASE = "/dashboard/";

export type Screen =
  | "sites"
  | "site"
  | "pages"
  | "page"
  | "subscribers"
  | "incidents"
  | "maintenance"
  | "alerts"
  | "account"
  | "import"
  | "sign-in"
  | "setup"
  | "reset"
  | "join"
  | "forgot";

export interface Route {
  screen: Screen;
  /** The site's or page's id, on a detail screen. */
  id: string;
}

const SIMPLE: Screen[] = [
  "pages",
  "incidents",
  "maintenance",
  "alerts",
  "account",
  "import",
  "sign-in",
  "setup",
  "reset",
  "join",
  "forgot",
];

export function routeOf(location: Pick<Location, "pathname">): Route {
  const rest = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : "";
  const [first = "", second = "", third = ""] = rest.split("/").map(decodeURIComponent);
  if (first === "sites" && second) return { screen: "site", id: second };
  if (first === "pages" && second && third === "subscribers") return { screen: "subscribers", id: second };
  if (first === "pages" && second) return { screen: "page", id: second };
  if ((SIMPLE as string[]).includes(first)) return { screen: first as Screen, id: "" };
  return { screen: "sites", id: "" };
}

/** Goes to a dashboard address without reloading; every element listening for pl-navigate follows. */
export function navigate(path: string): void {
  history.pushState(null, "", path);
  dispatchEvent(new Event("pl-navigate"));
  scrollTo(0, 0);
}

/**
 * A link's click, followed within the dashboard (`@click=${follow}` on an `<a href>`); a click that asks for a new
 * tab or window (a modifier, the middle button) is left to the browser.
 */
export function follow(event: MouseEvent): void {
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  navigate((event.currentTarget as HTMLAnchorElement).getAttribute("href") as string);
}
