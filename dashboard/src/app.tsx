import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { Link, Route, Router, Switch, useLocation } from "wouter-preact";
import {
  APP_NOT_VISIBLE,
  ApiError,
  type AppSummary,
  errorMessage,
  getApp,
  getSession,
  listApps,
  onAppRefused,
  onUnauthorized,
  type Session,
  signOut,
  type User,
} from "./api.ts";
import { samePageOf } from "./app-route.ts";
import { ErrorText, Page } from "./components/page.tsx";
import { hashRoute, useHashPath, useHashQuery } from "./hash-route.ts";
import { AppsPage } from "./pages/apps.tsx";
import { CohortsPage } from "./pages/cohorts.tsx";
import { CostPage } from "./pages/costs.tsx";
import { ExportPage } from "./pages/export.tsx";
import { KeysPage } from "./pages/keys.tsx";
import { LinksPage } from "./pages/links.tsx";
import { LivePage } from "./pages/live.tsx";
import { OverviewPage } from "./pages/overview.tsx";
import { PartnersPage } from "./pages/partners.tsx";
import { managesPeople, PeoplePage } from "./pages/people.tsx";
import { SettingsPage } from "./pages/settings.tsx";
import { SignInPage } from "./pages/sign-in.tsx";
import { SkadnetworkPage } from "./pages/skadnetwork.tsx";
import { forgetAllReports } from "./report-cache.ts";
import { carriedQuery, isReportPage } from "./report-query.ts";
import {
  appPath,
  SessionContext,
  type SessionContextValue,
  storeAppId,
  storedAppId,
} from "./session.tsx";

export function App() {
  return (
    <Router hook={useHashPath}>
      <Shell />
    </Router>
  );
}

type SessionState =
  | { status: "loading" }
  | { status: "failed"; message: string }
  /** `expired`: the session ended under a signed-in person, who is told so at the sign-in. */
  | { status: "signed-out"; expired?: true }
  | { status: "signed-in"; user: User };

/** An app's pages in the navigation; `ios`: only for an app Apple's postbacks may reach. */
const APP_PAGES: readonly { page: string; label: string; ios?: true }[] = [
  { page: "overview", label: "Overview" },
  { page: "cohorts", label: "Cohorts" },
  { page: "cost", label: "Cost" },
  { page: "settings", label: "Settings" },
  { page: "keys", label: "Keys" },
  { page: "links", label: "Links" },
  { page: "partners", label: "Partners" },
  { page: "skadnetwork", label: "SKAdNetwork", ios: true },
  { page: "live", label: "Live" },
  { page: "export", label: "Export" },
];

const decodeSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** The app named by an app page's route, if the location is one. */
const routeAppId = (location: string): string | null => {
  const match = /^\/apps\/([^/]+)\//.exec(location);
  return match?.[1] ? decodeSegment(match[1]) : null;
};

function Shell() {
  const [location, navigate] = useLocation();
  const [session, setSession] = useState<SessionState>({ status: "loading" });
  const [apps, setApps] = useState<AppSummary[] | null>(null);
  const [appsError, setAppsError] = useState<string | null>(null);
  const [chosenAppId, setChosenAppId] = useState<string | null>(storedAppId);
  /** An app the service refused while the session held: not this person's, or none. */
  const [refusedAppId, setRefusedAppId] = useState<string | null>(null);
  /**
   * Where a signed-out visitor was going, and who was signed in when their session ended (null
   * for a visitor who was not): they land there after signing in, unless another person does.
   */
  const returnTo = useRef<{ route: string; email: string | null } | null>(null);
  /** Who is signed in, or was when their session ended: whose place `returnTo` keeps. */
  const lastEmail = useRef<string | null>(null);
  /** Signed out on purpose: the page shown is not a place to come back to. */
  const signedOutOnPurpose = useRef(false);
  /** Apps a route named that the list did not know, for which the list was asked again. */
  const reloadedFor = useRef(new Set<string>());

  const loadSession = useCallback(() => {
    setSession({ status: "loading" });
    getSession().then(
      (answer) => setSession({ status: "signed-in", user: answer.user }),
      (error: unknown) =>
        setSession(
          error instanceof ApiError && error.status === 401
            ? { status: "signed-out" }
            : { status: "failed", message: errorMessage(error) },
        ),
    );
  }, []);

  useEffect(() => {
    onUnauthorized(() =>
      setSession((current) =>
        current.status === "signed-in"
          ? { status: "signed-out", expired: true }
          : { status: "signed-out" },
      ),
    );
    onAppRefused((appId) => {
      setRefusedAppId(appId);
      // Not remembered: the picker and the next visit do not offer it again.
      if (storedAppId() === appId) storeAppId(null);
      setChosenAppId((chosen) => (chosen === appId ? null : chosen));
    });
    loadSession();
  }, [loadSession]);

  const signedInEmail = session.status === "signed-in" ? session.user.email : null;

  // Signed out: every page but sign-in leads there. Signed in: sign-in and `/` lead to the apps.
  useEffect(() => {
    if (session.status === "signed-out" && location !== "/sign-in") {
      // With the page's query: a cohorts page's filters are there again after signing in.
      if (location !== "/" && !signedOutOnPurpose.current) {
        returnTo.current = { route: hashRoute(), email: lastEmail.current };
      }
      // Only the page shown at the sign-out: a page opened later is one to come back to.
      signedOutOnPurpose.current = false;
      navigate("/sign-in", { replace: true });
    } else if (signedInEmail !== null && (location === "/" || location === "/sign-in")) {
      const kept = returnTo.current;
      returnTo.current = null;
      // Another person's place is not theirs to land on: their own start page.
      const next =
        kept !== null && (kept.email === null || kept.email === signedInEmail) ? kept.route : null;
      navigate(next ?? "/apps", { replace: true });
    }
  }, [session.status, signedInEmail, location, navigate]);

  const reloadApps = useCallback(async () => {
    const listed = await listApps();
    setApps(listed);
    setAppsError(null);
  }, []);

  useEffect(() => {
    if (session.status !== "signed-in") {
      setApps(null);
      reloadedFor.current.clear();
      return;
    }
    // Unread is not "none": the apps page says what failed and asks again.
    reloadApps().catch((caught: unknown) => setAppsError(errorMessage(caught)));
  }, [session.status, reloadApps]);

  const appInRoute = routeAppId(location);
  const routeRefused = appInRoute !== null && appInRoute === refusedAppId;
  // Signed in only: the page of a person who just signed out is no choice of the next one's.
  useEffect(() => {
    if (session.status !== "signed-in") return;
    if (appInRoute !== null && appInRoute !== chosenAppId && !routeRefused) {
      setChosenAppId(appInRoute);
      storeAppId(appInRoute);
    }
  }, [session.status, appInRoute, chosenAppId, routeRefused]);

  // Another page than the refused app's: that app is asked for again if the route names it.
  useEffect(() => {
    if (refusedAppId !== null && appInRoute !== refusedAppId) setRefusedAppId(null);
  }, [appInRoute, refusedAppId]);

  // An app the route names that the list does not know (made since, by the CLI or the demo):
  // the list is asked for once more, so the picker shows its name rather than its bare id.
  useEffect(() => {
    if (apps === null || appInRoute === null || routeRefused) return;
    if (apps.some((app) => app.app_id === appInRoute) || reloadedFor.current.has(appInRoute))
      return;
    reloadedFor.current.add(appInRoute);
    reloadApps().catch(() => undefined);
  }, [apps, appInRoute, routeRefused, reloadApps]);

  // An app remembered from before that this user may not see is forgotten.
  useEffect(() => {
    if (apps && chosenAppId && appInRoute === null && !apps.some((a) => a.app_id === chosenAppId)) {
      setChosenAppId(null);
      storeAppId(null);
    }
  }, [apps, chosenAppId, appInRoute]);

  const currentAppId = (routeRefused ? null : appInRoute) ?? chosenAppId;
  const currentAppOnIos = useOnIos(apps, currentAppId);
  const chooseApp = useCallback(
    (appId: string) => {
      setChosenAppId(appId);
      storeAppId(appId);
      navigate(appPath(appId, "overview"));
    },
    [navigate],
  );
  // The header's picker opens the other app on the page open now, its range kept: one who
  // compares two apps keeps their place. Anywhere else (the Apps page), on its overview.
  const switchApp = useCallback(
    (appId: string) => {
      setChosenAppId(appId);
      storeAppId(appId);
      navigate(samePageOf(hashRoute(), appId));
    },
    [navigate],
  );

  useEffect(() => {
    if (session.status === "signed-in") lastEmail.current = session.user.email;
  }, [session]);

  const onSignedIn = useCallback((answer: Session) => {
    forgetAllReports();
    // Another person than the one whose session ended: the app that one chose is not theirs.
    if (lastEmail.current !== null && lastEmail.current !== answer.user.email) {
      setChosenAppId(null);
      storeAppId(null);
    }
    setSession({ status: "signed-in", user: answer.user });
  }, []);

  const [signOutProblem, setSignOutProblem] = useState<string | null>(null);
  const onSignOut = async () => {
    setSignOutProblem(null);
    try {
      await signOut();
    } catch (caught) {
      // The session may still stand (only the service can end it): the page says so rather
      // than look signed out while a reload would bring the person back.
      setSignOutProblem(`Not signed out: ${errorMessage(caught)} Try again.`);
      return;
    }
    // Nothing of this person's is left for the next one on this tab: not their figures, not
    // their page, not their app.
    forgetAllReports();
    returnTo.current = null;
    lastEmail.current = null;
    signedOutOnPurpose.current = true;
    setChosenAppId(null);
    storeAppId(null);
    setSession({ status: "signed-out" });
  };

  const user = session.status === "signed-in" ? session.user : null;
  const context = useMemo<SessionContextValue | null>(
    () =>
      user ? { user, apps, appsError, reloadApps, currentAppId, currentAppOnIos, chooseApp } : null,
    [user, apps, appsError, reloadApps, currentAppId, currentAppOnIos, chooseApp],
  );

  return (
    <>
      <button type="button" class="skip-link" onClick={skipToMain}>
        Skip to content
      </button>
      <header class="site-header">
        <div class="header-row">
          <span class="brand">Attribution</span>
          {context ? (
            <div class="header-tools">
              <AppPicker apps={apps} currentAppId={currentAppId} onChoose={switchApp} />
              <span class="user" title={context.user.email}>
                {context.user.email}
              </span>
              <button type="button" class="secondary" onClick={onSignOut}>
                Sign out
              </button>
              {signOutProblem ? <ErrorText message={signOutProblem} /> : null}
            </div>
          ) : null}
        </div>
        {context ? (
          <MainNav
            location={location}
            currentAppId={currentAppId}
            onIos={currentAppOnIos === true}
            people={managesPeople(context.user)}
          />
        ) : null}
      </header>
      <main id="main" tabIndex={-1}>
        {session.status === "loading" ? (
          <p class="loading">Loading…</p>
        ) : session.status === "failed" ? (
          <Page title="The service did not answer">
            <ErrorText message={session.message} />
            <button type="button" onClick={loadSession}>
              Try again
            </button>
          </Page>
        ) : session.status === "signed-out" ? (
          location === "/sign-in" ? (
            <SignInPage onSignedIn={onSignedIn} expired={session.expired === true} />
          ) : null
        ) : context ? (
          <SessionContext.Provider value={context}>
            {context.user.viewer ? <ViewOnlyNote /> : null}
            {routeRefused ? <AppRefused /> : <Routes />}
          </SessionContext.Provider>
        ) : null}
      </main>
    </>
  );
}

/**
 * Whether Apple's postbacks may reach an app: its platform says so for an iOS app; an app
 * registered for Android is on iOS too when its link settings name an App Store id, which is
 * how the service finds a postback's app. Asked again whenever the list of apps is (a save of
 * the settings reads it again); null while not known.
 */
function useOnIos(apps: AppSummary[] | null, appId: string | null): boolean | null {
  const [known, setKnown] = useState<{ appId: string; onIos: boolean } | null>(null);
  useEffect(() => {
    if (apps === null || appId === null) return;
    const summary = apps.find((app) => app.app_id === appId);
    // An app the list lacks is not one this person may open: nothing to show for it.
    if (!summary || summary.platform === "ios") {
      setKnown({ appId, onIos: summary?.platform === "ios" });
      return;
    }
    let current = true;
    getApp(appId).then(
      (app) => {
        if (current) setKnown({ appId, onIos: app.links.app_store_id !== null });
      },
      () => {
        if (current) setKnown({ appId, onIos: false });
      },
    );
    return () => {
      current = false;
    };
  }, [apps, appId]);
  return known !== null && known.appId === appId ? known.onIos : null;
}

/** The skip link is a button: it moves focus without touching the hash, which is the route. */
const skipToMain = () => {
  document.getElementById("main")?.focus();
};

/**
 * The keys that step a closed select to another option on Windows and Linux, each step a change:
 * the picker opens the app stepped to once the person settles on it, not at each step.
 */
const STEP_KEYS = new Set(["ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"]);

function AppPicker(props: {
  apps: AppSummary[] | null;
  currentAppId: string | null;
  onChoose: (appId: string) => void;
}) {
  const { apps, currentAppId } = props;
  /** Stepped with the keyboard since the last app opened: Enter, or leaving, opens it. */
  const stepping = useRef(false);
  // The app the select shows: the current one until the person steps to another. Held here, so
  // that the shell drawn again meanwhile (an answer arriving) leaves the step where it is.
  const [shown, setShown] = useState(currentAppId);
  useEffect(() => setShown(currentAppId), [currentAppId]);
  if (!currentAppId) return null;
  const known = apps?.some((app) => app.app_id === currentAppId) ?? false;
  const choose = (value: string) => {
    stepping.current = false;
    if (value && value !== currentAppId) props.onChoose(value);
  };
  return (
    <label class="app-picker">
      <span>Current app</span>
      <select
        value={shown ?? currentAppId}
        onKeyDown={(event) => {
          if (event.key === "Enter") choose(event.currentTarget.value);
          else if (STEP_KEYS.has(event.key) || event.key.length === 1) stepping.current = true;
        }}
        onChange={(event) => {
          setShown(event.currentTarget.value);
          if (!stepping.current) choose(event.currentTarget.value);
        }}
        onBlur={(event) => {
          if (stepping.current) choose(event.currentTarget.value);
        }}
      >
        {known ? null : <option value={currentAppId}>{currentAppId}</option>}
        {(apps ?? []).map((app) => (
          <option key={app.app_id} value={app.app_id}>
            {app.name} ({app.app_id})
          </option>
        ))}
      </select>
    </label>
  );
}

function MainNav(props: {
  location: string;
  currentAppId: string | null;
  onIos: boolean;
  /** Whether the People page is offered: an admin's alone (the service refuses anyone else). */
  people: boolean;
}) {
  const { location, currentAppId, onIos } = props;
  const query = useHashQuery();
  /** The report page shown, if one is: its range (and filters) go with a link to another. */
  const reportPage = /^\/apps\/[^/]+\/([^/]+)$/.exec(location)?.[1];
  const carrying = reportPage !== undefined && isReportPage(reportPage);
  const item = (path: string, label: string, page?: string) => {
    const current = location === path;
    const carried = carrying && page !== undefined ? carriedQuery(query, page) : "";
    return (
      <li key={path}>
        <Link
          href={carried ? `${path}?${carried}` : path}
          aria-current={current ? "page" : undefined}
        >
          {label}
        </Link>
      </li>
    );
  };
  return (
    <nav aria-label="Main">
      <ul>
        {item("/apps", "Apps")}
        {props.people ? item("/people", "People") : null}
        {currentAppId
          ? APP_PAGES.filter((page) => onIos || !page.ios).map(({ page, label }) =>
              item(appPath(currentAppId, page), label, page),
            )
          : null}
      </ul>
    </nav>
  );
}

function Routes() {
  return (
    <Switch>
      <Route path="/apps">
        <AppsPage />
      </Route>
      <Route path="/people">
        <PeoplePage />
      </Route>
      <Route path="/apps/:appId/overview">
        {(params) => <OverviewPage key={params.appId} appId={decodeSegment(params.appId)} />}
      </Route>
      <Route path="/apps/:appId/cohorts">
        {(params) => <CohortsPage key={params.appId} appId={decodeSegment(params.appId)} />}
      </Route>
      <Route path="/apps/:appId/cost">
        {(params) => <CostPage key={params.appId} appId={decodeSegment(params.appId)} />}
      </Route>
      <Route path="/apps/:appId/settings">
        {(params) => <SettingsPage key={params.appId} appId={decodeSegment(params.appId)} />}
      </Route>
      <Route path="/apps/:appId/keys">
        {(params) => <KeysPage key={params.appId} appId={decodeSegment(params.appId)} />}
      </Route>
      <Route path="/apps/:appId/links">
        {(params) => <LinksPage key={params.appId} appId={decodeSegment(params.appId)} />}
      </Route>
      <Route path="/apps/:appId/partners">
        {(params) => <PartnersPage key={params.appId} appId={decodeSegment(params.appId)} />}
      </Route>
      <Route path="/apps/:appId/skadnetwork">
        {(params) => <SkadnetworkPage key={params.appId} appId={decodeSegment(params.appId)} />}
      </Route>
      <Route path="/apps/:appId/live">
        {(params) => <LivePage key={params.appId} appId={decodeSegment(params.appId)} />}
      </Route>
      <Route path="/apps/:appId/export">
        {(params) => <ExportPage key={params.appId} appId={decodeSegment(params.appId)} />}
      </Route>
      <Route path="/sign-in">
        <p class="loading">Loading…</p>
      </Route>
      <Route>
        <NotFound />
      </Route>
    </Switch>
  );
}

/** Above every page of a viewer's: why it finds nothing to change. */
function ViewOnlyNote() {
  return (
    <p class="view-only" data-testid="view-only">
      <strong>View only.</strong> You can see the reports, settings, links and exports of your apps,
      but not change them.
    </p>
  );
}

/** The page of an app the service refused while the person is still signed in. */
function AppRefused() {
  return (
    <Page title="App not available">
      <p class="error" role="alert" data-testid="app-refused">
        {APP_NOT_VISIBLE}
      </p>
      <p>
        <Link href="/apps">Go to the Apps page</Link> to see the apps you may open.
      </p>
    </Page>
  );
}

function NotFound() {
  return (
    <Page title="Page not found">
      <p>
        There is no page here. <Link href="/apps">Go to your apps</Link>.
      </p>
    </Page>
  );
}
