/**
 * The signed-in member, provided once by the shell (`porchlight-dashboard.ts`) and read by every screen through a
 * `ContextConsumer`: no screen is handed it as a property or fetches the session again.
 */
import { ContextConsumer, createContext } from "@lit/context";
import type { ReactiveControllerHost } from "lit";
import type { Permission } from "../../../server/contract/account.ts";
import type { MeInfo } from "./types.ts";

export const meContext = createContext<MeInfo>(Symbol("pl-me"));

/** The member as the screen sees it, kept current (a role changed by an owner re-renders the screen). */
export function consumeMe(host: ReactiveControllerHost & HTMLElement): ContextConsumer<typeof meContext, typeof host> {
  return new ContextConsumer(host, { context: meContext, subscribe: true });
}

/** Whether the member may do what `permission` names ("sites:write", "alerts:write", ...). */
export function can(me: MeInfo | undefined, permission: Permission): boolean {
  return me?.permissions.includes(permission) ?? false;
}
