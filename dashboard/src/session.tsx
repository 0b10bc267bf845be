import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { AppSummary, User } from "./api.ts";

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
 * Whether the apps, and so each one's time zone, are known: until then a page neither judges
 * its range (its days may not be UTC's) nor asks for a report of it. Apps that could not be read
 * leave UTC's days, as the page's legend then says.
 */
export const useZoneKnown = (): boolean => {
  const { apps, appsError } = useSession();
  return apps !== null || appsError !== null;
};

/** The hash route of one of an app's pages. */
export const appPath = (appId: string, page: string): string =>
  `/apps/${encodeURIComponent(appId)}/${page}`;
