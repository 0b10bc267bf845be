import { createContext } from "preact";
import { useCallback, useContext, useEffect, useRef, useState } from "preact/hooks";
import type { AppSummary, User } from "./api.ts";
import { reportZone } from "./report-zone.ts";

export interface SessionContextValue {
  user: User;
  /** The apps the user may see; null while loading, or when they could not be read. */
  apps: AppSummary[] | null;
  /** Why the apps could not be read, until they are. */
  appsError: string | null;
  reloadApps: () => Promise<void>;
  /** The app the header's picker and the app pages name, if one was chosen. */
  currentAppId: string | null;
  /**
   * Whether Apple's postbacks may reach the current app: an iOS app, or an app registered for
   * Android whose links name an App Store id (it ships on both); null while not known.
   */
  currentAppOnIos: boolean | null;
  chooseApp: (appId: string) => void;
}

export const SessionContext = createContext<SessionContextValue | null>(null);

export const useSession = (): SessionContextValue => {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside a signed-in page");
  return session;
};

/**
 * Whether the person only views: a viewer's every change is refused by the service, so the
 * pages show it no control that would make one.
 */
export const useViewOnly = (): boolean => useSession().user.viewer === true;

const STORED_APP = "attribution.dashboard.app";

export const storedAppId = (): string | null => {
  try {
    return localStorage.getItem(STORED_APP);
  } catch {
    return null;
  }
};

export const storeAppId = (appId: string | null): void => {
  try {
    if (appId === null) localStorage.removeItem(STORED_APP);
    else localStorage.setItem(STORED_APP, appId);
  } catch {
    // storage unavailable (private mode): the choice lasts this page only
  }
};

/** The time zone an app's reports count days in, as its summary says; UTC while not known. */
export const useAppTimeZone = (appId: string): string =>
  useSession().apps?.find((app) => app.app_id === appId)?.time_zone ?? "UTC";

/**
 * The time zone a report page's days are of (./report-zone.ts): the zone its answers were
 * counted in (the app's as the service read it), as the page tells it with `answeredIn`, once
 * one came; the app list's (`listed`) before. An answer's zone is kept until another answer's,
 * also while a range the page refuses clears the answer. An answer of another zone than the
 * list's says the zone changed since the list was read (in another tab, through the API): the
 * list is read again, once for each zone an answer names, so that this page's today, inputs and
 * presets, and every other page's, follow the app's zone.
 */
export const useReportZone = (
  appId: string,
): { zone: string; listed: string; answeredIn: (zone: string | null | undefined) => void } => {
  const { reloadApps } = useSession();
  const listed = useAppTimeZone(appId);
  const [answered, setAnswered] = useState<string | null>(null);
  const { zone, listBehind } = reportZone(listed, answered);
  const readFor = useRef(new Set<string>());
  useEffect(() => {
    if (!listBehind || readFor.current.has(zone)) return;
    readFor.current.add(zone);
    // Unread, the page goes by the answer's zone all the same.
    reloadApps().catch(() => undefined);
  }, [listBehind, zone, reloadApps]);
  const answeredIn = useCallback((given: string | null | undefined) => {
    if (given) setAnswered(given);
  }, []);
  return { zone, listed, answeredIn };
};

/**
 * Whether the apps, and so each one's time zone, are known: until then a page neither judges
 * its range (its days may not be UTC's) nor asks for a report of it. Apps that could not be read
 * leave UTC's days, as the page's legend then says.
 */
export const useZoneKnown = (): boolean => {
  const { apps, appsError } = useSession();
  return apps !== null || appsError !== null;
};

export { appPath } from "./app-route.ts";
