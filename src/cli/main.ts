/** The `attribution` command line: run the service, manage apps, load demo data, export. */
import { readFileSync } from "node:fs";
import { Command, InvalidArgumentError, Option } from "commander";
import { MAX_DEMO_DAYS } from "../demo/generate.ts";
import { KEY_KINDS, type KeyKind } from "../domain/keys.ts";
import { runningService } from "../embedded/data-dir.ts";
import { EXPORT_FORMATS, type ExportFormat } from "../export/formats/names.ts";
import { LAKE_TABLES, type LakeTableName } from "../lake/lake-tables.ts";
import { LANDING_LANGUAGES } from "../links/landing-strings.ts";
import { PLATFORMS, type Platform } from "../ports/apps.ts";
import type { ConfigureAppOptions } from "./commands/apps.ts";
import type { CreateLinkOptions, UpdateLinkOptions } from "./commands/links.ts";
import type { SetPartnerOptions } from "./commands/partners.ts";
import { integer, nonEmpty, optionVariables, unsetEmptyEnv } from "./options.ts";
import { serviceUrl } from "./service-url.ts";

// biome-ignore lint/suspicious/noExplicitAny: any function's parameters and result are carried through
type AnyFunction = (...args: any[]) => any;

/**
 * A command's function, its module loaded when the command runs: `attribution export` or
 * `keys list` need not load the service (`start`) or the AWS SDK's clients, which took most
 * of every command's start.
 */
const lazy =
  <Module extends Record<Name, AnyFunction>, Name extends keyof Module>(
    load: () => Promise<Module>,
    name: Name,
  ) =>
  async (...args: Parameters<Module[Name]>): Promise<Awaited<ReturnType<Module[Name]>>> =>
    (await load())[name](...args);

/** `--param promo=WINTER`, repeatable: each adds one custom parameter. */
const collectParam = (value: string, previous: Record<string, string> = {}) => {
  const at = value.indexOf("=");
  if (at <= 0) throw new InvalidArgumentError("must be name=value.");
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
};

const appsModule = () => import("./commands/apps.ts");
const keysModule = () => import("./commands/keys.ts");
const linksModule = () => import("./commands/links.ts");
const usersModule = () => import("./commands/users.ts");
const partnersModule = () => import("./commands/partners.ts");
const skadnetworkModule = () => import("./commands/skadnetwork.ts");
const costsModule = () => import("./commands/costs.ts");
const deletionsModule = () => import("./commands/deletions.ts");
const createAppCommand = lazy(appsModule, "createAppCommand");
const listAppsCommand = lazy(appsModule, "listAppsCommand");
const configureAppCommand = lazy(appsModule, "configureAppCommand");
const demoCommand = lazy(() => import("./commands/demo.ts"), "demoCommand");
const exportModule = () => import("./commands/export.ts");
const exportCommand = lazy(exportModule, "exportCommand");
const parseSince = lazy(exportModule, "parseSince");
const exportFormatOf = lazy(exportModule, "exportFormatOf");
const createKeyCommand = lazy(keysModule, "createKeyCommand");
const listKeysCommand = lazy(keysModule, "listKeysCommand");
const revokeKeyCommand = lazy(keysModule, "revokeKeyCommand");
const createLinkCommand = lazy(linksModule, "createLinkCommand");
const listLinksCommand = lazy(linksModule, "listLinksCommand");
const setLinkDisabledCommand = lazy(linksModule, "setLinkDisabledCommand");
const updateLinkCommand = lazy(linksModule, "updateLinkCommand");
const importRatesCommand = lazy(() => import("./commands/rates.ts"), "importRatesCommand");
const replayErrorsCommand = lazy(() => import("./commands/lake.ts"), "replayErrorsCommand");
const start = lazy(() => import("./commands/start.ts"), "start");
const addUserCommand = lazy(usersModule, "addUserCommand");
const partnerCatalogCommand = lazy(partnersModule, "partnerCatalogCommand");
const setSchemaCommand = lazy(skadnetworkModule, "setSchemaCommand");
const importCostsCommand = lazy(costsModule, "importCostsCommand");
const requestDeletionCommand = lazy(deletionsModule, "requestDeletionCommand");
const deletionStatusCommand = lazy(deletionsModule, "deletionStatusCommand");
const showSchemaCommand = lazy(skadnetworkModule, "showSchemaCommand");
const networksCommand = lazy(skadnetworkModule, "networksCommand");
const skadnetworkReportCommand = lazy(skadnetworkModule, "skadnetworkReportCommand");
const exportPostbacksCommand = lazy(skadnetworkModule, "exportPostbacksCommand");
const unknownPostbacksCommand = lazy(skadnetworkModule, "unknownPostbacksCommand");
const listPostbacksCommand = lazy(partnersModule, "listPostbacksCommand");
const setPartnerCommand = lazy(partnersModule, "setPartnerCommand");
const setWebhookCommand = lazy(partnersModule, "setWebhookCommand");
const removePostbackCommand = lazy(partnersModule, "removePostbackCommand");
const postbackSettingsCommand = lazy(partnersModule, "postbackSettingsCommand");
const testPostbackCommand = lazy(partnersModule, "testPostbackCommand");
const postbackLogCommand = lazy(partnersModule, "postbackLogCommand");
const grantUserCommand = lazy(usersModule, "grantUserCommand");
const revokeUserCommand = lazy(usersModule, "revokeUserCommand");
const listUsersCommand = lazy(usersModule, "listUsersCommand");
const removeUserCommand = lazy(usersModule, "removeUserCommand");
const userPasswordCommand = lazy(usersModule, "userPasswordCommand");

const pkg: unknown = JSON.parse(
  readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
);
const version = typeof pkg === "object" && pkg && "version" in pkg ? String(pkg.version) : "0.0.0";

const dataDirOption = () =>
  new Option("--data-dir <path>", "data folder of the embedded service")
    .argParser(nonEmpty)
    .env("ATTRIBUTION_DATA_DIR");
/** The data folder: loads the service's configuration, which the export to a URL never needs. */
const defaultDataDir = async (dataDir?: string) =>
  (await import("../config/embedded.ts")).embeddedConfig(process.env, dataDir ? { dataDir } : {})
    .dataDir;

interface StartOptions {
  port?: number;
  linkPort?: number;
  host?: string;
  dataDir?: string;
}

/**
 * Why `start` failed; when a listener could not listen, which setting to change: the port in
 * use (or not allowed) is the API's or the link host's, the address the one to listen on.
 */
const startFailure = async (error: unknown, options: StartOptions): Promise<string> => {
  const message = error instanceof Error ? error.message : String(error);
  const failure = error as Partial<NodeJS.ErrnoException> & { port?: number; hostname?: string };
  let config: { host?: string; port?: number; linkPort?: number } = {};
  try {
    config = (await import("../config/embedded.ts")).embeddedConfig(process.env, options);
  } catch {
    // A setting the configuration refuses failed the start before any listener.
  }
  const ports = [
    ...(failure.port === config.port ? ["--port (ATTRIBUTION_PORT)"] : []),
    ...(failure.port === config.linkPort ? ["--link-port (ATTRIBUTION_LINK_PORT)"] : []),
  ];
  const anotherPort = `give another port with ${ports.join(" or ") || "--port or --link-port"}`;
  if (failure.syscall === "listen" && failure.code === "EADDRINUSE") {
    return `${message}: another program listens on port ${failure.port}; ${anotherPort}.`;
  }
  if (failure.syscall === "listen" && failure.code === "EACCES") {
    return `${message}: this user may not listen on port ${failure.port}; ${anotherPort}.`;
  }
  const host = "give an address of this machine with --host (ATTRIBUTION_HOST)";
  if (failure.syscall === "listen" && failure.code === "EADDRNOTAVAIL")
    return `${message}: ${host}.`;
  if (failure.syscall === "getaddrinfo" && failure.hostname === config.host) {
    return `${message}: ${host}.`;
  }
  return message;
};

/**
 * The service a command that goes over HTTP asks: `--url`, else the one running on the data
 * folder. None running there is said, never guessed: another folder's service on the default
 * port would answer with its own data.
 */
const runningServiceUrl = async (options: { url?: string; dataDir?: string }): Promise<string> => {
  if (options.url) {
    // Said here, before a command builds on it: `export` read it first as a bare URL, and a
    // value that is none ended it with "Invalid URL", naming neither the flag nor the variable.
    serviceUrl(options.url, "/");
    return options.url;
  }
  const dataDir = await defaultDataDir(options.dataDir);
  const running = await runningService(dataDir);
  if (!running) {
    throw new Error(
      `No service runs on ${dataDir}: start it (attribution start --data-dir ${dataDir}), or name one with --url.`,
    );
  }
  return running.url;
};

/** The server key a command calls the service's API with. */
const serverKeyOption = () =>
  new Option("--key <key>", "server API key").env("ATTRIBUTION_API_KEY").makeOptionMandatory();

/** Where the service a command calls is. */
const serviceUrlOption = () =>
  new Option("--url <url>", "service base URL (default: the running embedded service)")
    .argParser(nonEmpty)
    .env("ATTRIBUTION_URL");

const program = new Command("attribution")
  .description("Mobile attribution service: ingestion, attribution and export.")
  .version(version);

program
  .command("start")
  .description("run the whole service on this machine")
  .addOption(
    new Option("--port <port>", "port to listen on")
      .argParser(integer(0, 65_535))
      .env("ATTRIBUTION_PORT"),
  )
  .addOption(
    new Option("--link-port <port>", "port of the link host, where links are tapped")
      .argParser(integer(0, 65_535))
      .env("ATTRIBUTION_LINK_PORT"),
  )
  .addOption(
    new Option("--host <host>", "address to listen on").argParser(nonEmpty).env("ATTRIBUTION_HOST"),
  )
  .addOption(dataDirOption())
  .action(async (options: StartOptions) => {
    try {
      await start(options);
    } catch (error) {
      // The stores, queues and jobs the runtime opened before the failure would keep the
      // process alive: it ends here. What they hold is on disk (write-ahead files, the click
      // log), read again at the next start, as after any stop that was not Ctrl-C.
      console.error(await startFailure(error, options));
      process.exit(1);
    }
  });

const apps = program.command("apps").description("register and list apps");
apps
  .command("create")
  .description("register an app and print its SDK and server keys (shown once)")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .requiredOption("--name <name>", "human-readable app name")
  .addOption(
    new Option("--platform <platform>", "app platform").choices(PLATFORMS).makeOptionMandatory(),
  )
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(
    async (options: {
      appId: string;
      name: string;
      platform: Platform;
      json?: boolean;
      dataDir?: string;
    }) => createAppCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );
apps
  .command("list")
  .description("list registered apps")
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(async (options: { json?: boolean; dataDir?: string }) =>
    listAppsCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );

apps
  .command("config")
  .description(
    "an app's remote configuration (on or off for its SDKs, sealing on or off) and link settings",
  )
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .option("--name <name>", "a new name for the app (1 to 200 characters)")
  .option("--enable", "SDKs of the app report (the default for a new app)")
  .option("--disable", "SDKs of the app switch themselves off")
  .addOption(
    new Option("--encryption <state>", "SDKs seal parameter values to the app's key").choices([
      "on",
      "off",
    ]),
  )
  .option(
    "--time-zone <zone>",
    "the IANA time zone the reports count days in, such as America/Los_Angeles (default UTC)",
  )
  .option("--app-store-id <id>", 'App Store numeric id of the iOS app ("" clears)')
  .option(
    "--play-package <package>",
    'Google Play package of an iOS app\'s Android build ("" clears)',
  )
  .option(
    "--ios-bundle-id <id>",
    'bundle id of an Android app\'s iOS build, for apple-app-site-association ("" clears)',
  )
  .option("--web-url <url>", 'where a tap from a desktop or other device goes ("" clears)')
  .option(
    "--link-hosts <hosts>",
    'comma-separated host names the app\'s links are served on, first for new links ("" clears)',
  )
  .option("--apple-team-id <id>", 'Apple team id, for apple-app-site-association ("" clears)')
  .option(
    "--android-sha256 <fingerprints>",
    'comma-separated signing certificate SHA-256 fingerprints, for assetlinks.json ("" clears)',
  )
  .option(
    "--languages <languages>",
    `comma-separated languages of the links' landing pages, the first the default (${LANDING_LANGUAGES.join(", ")}; "" clears: English)`,
  )
  .option("--preview-title <title>", 'the links\' preview title when a link has none ("" clears)')
  .option(
    "--preview-description <text>",
    'the links\' preview text when a link has none ("" clears)',
  )
  .option(
    "--preview-image-url <url>",
    'the links\' preview image (https) when a link has none ("" clears)',
  )
  .addOption(
    new Option("--attribution <state>", "match installs to touches, or skip them all").choices([
      "on",
      "off",
    ]),
  )
  .addOption(
    new Option(
      "--click-window-days <n>",
      "how long before a first open a click counts (1-30)",
    ).argParser(integer(1, 30)),
  )
  .addOption(
    new Option(
      "--view-window-hours <n>",
      "how long before a first open an impression counts (1-168)",
    ).argParser(integer(1, 168)),
  )
  .addOption(
    new Option(
      "--probabilistic-window-hours <n>",
      "the window of a probabilistic match (1-24)",
    ).argParser(integer(1, 24)),
  )
  .addOption(
    new Option("--probabilistic-android <state>", "probabilistic matching on Android").choices([
      "on",
      "off",
    ]),
  )
  .addOption(
    new Option(
      "--probabilistic-ios <state>",
      "probabilistic matching on iOS, for installs whose ATT status is authorized (off: none)",
    ).choices(["on", "off"]),
  )
  .addOption(
    new Option(
      "--confidence-floor <level>",
      "the lowest probabilistic confidence that counts",
    ).choices(["low", "medium"]),
  )
  .addOption(
    new Option(
      "--deep-link-confidence <level>",
      "the lowest confidence of a match that delivers its link's deferred deep link (default medium)",
    ).choices(["low", "medium", "high"]),
  )
  .addOption(dataDirOption())
  .action(async (options: Omit<ConfigureAppOptions, "dataDir"> & { dataDir?: string }) =>
    configureAppCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );

const keys = program.command("keys").description("issue, list and revoke API keys");
keys
  .command("create")
  .description("issue a new key for an app and print it (shown once)")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .addOption(
    new Option("--kind <kind>", "sdk (embedded in apps) or server (export, server-to-server)")
      .choices(Object.keys(KEY_KINDS))
      .makeOptionMandatory(),
  )
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(async (options: { appId: string; kind: KeyKind; json?: boolean; dataDir?: string }) =>
    createKeyCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );
keys
  .command("list")
  .description("list an app's keys (never the keys themselves)")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(async (options: { appId: string; json?: boolean; dataDir?: string }) =>
    listKeysCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );
keys
  .command("revoke")
  .description("revoke a key: it stops working at once on this machine")
  .argument("<key-id>", "the key's id, as `keys list` shows it")
  .option("--app-id <id>", "the key's app: a key of another app is not revoked")
  .addOption(dataDirOption())
  .action(async (keyId: string, options: { appId?: string; dataDir?: string }) =>
    revokeKeyCommand({
      keyId,
      appId: options.appId,
      dataDir: await defaultDataDir(options.dataDir),
    }),
  );

const users = program
  .command("users")
  .description("the dashboard's people: who may sign in, and which apps each sees");
users
  .command("add")
  .description("add a person (a password not given is made and shown once)")
  .argument("<email>", "their email, which they sign in with")
  .option(
    "--password <password>",
    "their password (at least 8 characters; on AWS, 12 with a lowercase and an uppercase letter, a digit and a symbol)",
  )
  .option("--admin", "an admin sees every app")
  .option("--viewer", "a viewer sees reports and exports and changes nothing")
  .option(
    "--app-id <id>",
    "an app they may see (repeat for more)",
    (value: string, previous: string[]) => [...previous, value],
    [] as string[],
  )
  .addOption(dataDirOption())
  .action(
    async (
      email: string,
      options: {
        password?: string;
        admin?: boolean;
        viewer?: boolean;
        appId: string[];
        dataDir?: string;
      },
    ) =>
      addUserCommand({
        email,
        ...(options.password !== undefined && { password: options.password }),
        admin: options.admin ?? false,
        viewer: options.viewer ?? false,
        appIds: options.appId,
        dataDir: await defaultDataDir(options.dataDir),
      }),
  );
users
  .command("list")
  .description("list the people and the apps each sees (never a password)")
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(async (options: { json?: boolean; dataDir?: string }) =>
    listUsersCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );
users
  .command("grant")
  .description("let a person see an app")
  .argument("<email>", "the person")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .addOption(dataDirOption())
  .action(async (email: string, options: { appId: string; dataDir?: string }) =>
    grantUserCommand({
      email,
      appId: options.appId,
      dataDir: await defaultDataDir(options.dataDir),
    }),
  );
users
  .command("revoke")
  .description("stop a person seeing an app (their next call about it is refused)")
  .argument("<email>", "the person")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .addOption(dataDirOption())
  .action(async (email: string, options: { appId: string; dataDir?: string }) =>
    revokeUserCommand({
      email,
      appId: options.appId,
      dataDir: await defaultDataDir(options.dataDir),
    }),
  );
users
  .command("password")
  .description("set a person's password (made and shown once when not given)")
  .argument("<email>", "the person")
  .option(
    "--password <password>",
    "the new password (at least 8 characters; on AWS, 12 with a lowercase and an uppercase letter, a digit and a symbol)",
  )
  .addOption(dataDirOption())
  .action(async (email: string, options: { password?: string; dataDir?: string }) =>
    userPasswordCommand({
      email,
      ...(options.password !== undefined && { password: options.password }),
      dataDir: await defaultDataDir(options.dataDir),
    }),
  );
users
  .command("remove")
  .description("remove a person")
  .argument("<email>", "the person")
  .addOption(dataDirOption())
  .action(async (email: string, options: { dataDir?: string }) =>
    removeUserCommand({ email, dataDir: await defaultDataDir(options.dataDir) }),
  );

const links = program.command("links").description("make and list an app's links for ads");
links
  .command("create")
  .description("make a link and print its deeplink_id and URL")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .requiredOption("--media-source <source>", "the network or source its clicks are credited to")
  .option("--campaign-id <id>", "campaign identifier")
  .option("--campaign-name <name>", "campaign name")
  .option("--adset-id <id>", "ad set identifier")
  .option("--adset-name <name>", "ad set name")
  .option("--ad-id <id>", "ad identifier")
  .option("--ad-name <name>", "ad name")
  .option("--deep-link-path <path>", "where in the app the link leads, e.g. /levels/7")
  .option("--param <name=value>", "a custom parameter (repeatable)", collectParam)
  .option("--android-url <url>", "where Android taps go instead of the Play Store")
  .option("--ios-url <url>", "where iOS taps go instead of the App Store")
  .option("--web-url <url>", "where other taps go instead of the app's web site")
  .addOption(
    // `on` or `off` taken as `links update` takes them, so that `--landing-page on` is no
    // stray argument; alone, on.
    new Option(
      "--landing-page [state]",
      "every tap gets the link's landing page instead of a redirect",
    )
      .choices(["on", "off"])
      .preset("on"),
  )
  .option(
    "--no-forward-params",
    "send taps to the web destination as written, without the tapped URL's parameters",
  )
  .option("--preview-title <title>", "the title of the link's card in chats and feeds")
  .option("--preview-description <text>", "the text of the link's card")
  .option("--preview-image-url <url>", "the image of the link's card (https)")
  .option(
    "--cost-model <model>",
    "how its clicks are paid for: CPI (per install a click wins), CPC or CPM; with --cost-value and --cost-currency",
  )
  .option("--cost-value <price>", "the price: of an install, a click, or a thousand impressions")
  .option("--cost-currency <code>", "the price's currency, ISO 4217 (EUR)")
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(
    async ({
      landingPage,
      ...options
    }: Omit<CreateLinkOptions, "dataDir" | "landingPage"> & {
      landingPage?: "on" | "off";
      dataDir?: string;
    }) =>
      createLinkCommand({
        ...options,
        ...(landingPage !== undefined && { landingPage: landingPage === "on" }),
        dataDir: await defaultDataDir(options.dataDir),
      }),
  );
links
  .command("list")
  .description("list an app's links, newest first, with their click counts")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(async (options: { appId: string; json?: boolean; dataDir?: string }) =>
    listLinksCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );
links
  .command("update")
  .description("change a link's destinations, landing page, parameter forwarding, preview or cost")
  .argument("<deeplink-id>", "the link's deeplink_id")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .option("--android-url <url>", 'where Android taps go instead of the Play Store ("" clears)')
  .option("--ios-url <url>", 'where iOS taps go instead of the App Store ("" clears)')
  .option("--web-url <url>", 'where other taps go instead of the app\'s web site ("" clears)')
  .addOption(
    new Option("--landing-page <state>", "every tap gets the link's landing page").choices([
      "on",
      "off",
    ]),
  )
  .addOption(
    new Option(
      "--forward-params <state>",
      "the web destination gets the tapped URL's parameters it lacks",
    ).choices(["on", "off"]),
  )
  .option("--preview-title <title>", "the title of the link's card (\"\" clears: the app's)")
  .option("--preview-description <text>", 'the text of the link\'s card ("" clears)')
  .option("--preview-image-url <url>", 'the image of the link\'s card, https ("" clears)')
  .option(
    "--cost-model <model>",
    'CPI, CPC or CPM, with --cost-value and --cost-currency ("" clears the cost)',
  )
  .option("--cost-value <price>", "the price: of an install, a click, or a thousand impressions")
  .option("--cost-currency <code>", "the price's currency, ISO 4217 (EUR)")
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(
    async (
      deeplinkId: string,
      options: Omit<UpdateLinkOptions, "dataDir" | "deeplinkId"> & { dataDir?: string },
    ) =>
      updateLinkCommand({
        ...options,
        deeplinkId,
        dataDir: await defaultDataDir(options.dataDir),
      }),
  );
for (const [name, disabled] of [
  ["disable", true],
  ["enable", false],
] as const) {
  links
    .command(name)
    .description(
      disabled
        ? "disable a link: its taps go to the web destination and are not counted"
        : "enable a disabled link again",
    )
    .argument("<deeplink-id>", "the link's deeplink_id")
    .requiredOption("--app-id <id>", "bundle identifier or package name")
    .addOption(dataDirOption())
    .action(async (deeplinkId: string, options: { appId: string; dataDir?: string }) =>
      setLinkDisabledCommand({
        appId: options.appId,
        deeplinkId,
        disabled,
        dataDir: await defaultDataDir(options.dataDir),
      }),
    );
}

const rates = program.command("rates").description("exchange rates for revenue in USD");
rates
  .command("import")
  .description("import the ECB's eurofxref-hist.csv (unzipped) for dates after the shipped table")
  .argument("<file>", "path of eurofxref-hist.csv")
  .addOption(dataDirOption())
  .action(async (file: string, options: { dataDir?: string }) =>
    importRatesCommand({ file, dataDir: await defaultDataDir(options.dataDir) }),
  );

const partners = program
  .command("partners")
  .description("postbacks to ad networks and webhooks to the app's backend (docs/postbacks.md)");
const repeatable = (value: string, previous: string[] = []) => [...previous, value];
partners
  .command("catalog")
  .description("the ad networks whose postback templates the service knows")
  .option("--json", "print JSON")
  // Taken as every command takes it; the catalog is the service's own, in no data folder.
  .addOption(dataDirOption())
  .action((options: { json?: boolean }) => partnerCatalogCommand({ json: options.json }));
partners
  .command("list")
  .description("an app's partner configurations and webhooks, with the last 30 days' attempts")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(async (options: { appId: string; json?: boolean; dataDir?: string }) =>
    listPostbacksCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );
partners
  .command("set")
  .description("create or replace a partner configuration (a saved secret left out is kept)")
  .argument("<config-id>", "the configuration's id: 1 to 64 of A-Z, a-z, 0-9, _, -")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .option("--from-file <path>", "the configuration as the API's JSON body; flags change it")
  .option("--partner <id>", "a catalog partner (`partners catalog`) or custom")
  .option("--template-file <path>", "a custom partner's template, as JSON")
  .option("--media-source <name>", "a media source whose installs it wins (repeat)", repeatable)
  .option("--value <name=value>", "a value the template names (repeat)", collectParam)
  .option("--secret-value <name=value>", "a value kept sealed, never shown (repeat)", collectParam)
  .addOption(
    new Option("--installs <which>", "only the installs it won, or all").choices(["won", "all"]),
  )
  .option(
    "--event <ours=theirs[:revenue]>",
    "map an event, with its revenue when :revenue (repeat)",
    repeatable,
  )
  .addOption(
    new Option("--event-window-days <n>", "days after the install an event still goes").argParser(
      integer(1, 365),
    ),
  )
  .addOption(
    new Option(
      "--tcf-vendor-id <id>",
      "its Global Vendor List id, whose consent in a TCF string it needs, or none",
    ).argParser((value) => (value === "none" ? null : integer(1, 65_535)(value))),
  )
  .addOption(new Option("--enabled <state>", "on or off").choices(["on", "off"]))
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(
    async (
      configId: string,
      options: Omit<SetPartnerOptions, "dataDir" | "configId"> & { dataDir?: string },
    ) =>
      setPartnerCommand({
        ...options,
        configId,
        dataDir: await defaultDataDir(options.dataDir),
      }),
  );
partners
  .command("webhook")
  .description("create or change a webhook of the app's backend (a new one's secret shown once)")
  .argument("<config-id>", "the webhook's id: 1 to 64 of A-Z, a-z, 0-9, _, -")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .option("--url <url>", "the https URL that receives the deliveries (required for a new webhook)")
  .option("--rotate-secret", "make a new signing secret, shown once")
  .addOption(new Option("--enabled <state>", "on or off").choices(["on", "off"]))
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(
    async (
      configId: string,
      options: {
        appId: string;
        url?: string;
        rotateSecret?: boolean;
        enabled?: "on" | "off";
        json?: boolean;
        dataDir?: string;
      },
    ) =>
      setWebhookCommand({ ...options, configId, dataDir: await defaultDataDir(options.dataDir) }),
  );
partners
  .command("remove")
  .description("remove a partner configuration (or, with --webhook, a webhook)")
  .argument("<config-id>", "the configuration's id")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .option("--webhook", "the id is a webhook's")
  .addOption(dataDirOption())
  .action(
    async (configId: string, options: { appId: string; webhook?: boolean; dataDir?: string }) =>
      removePostbackCommand({
        ...options,
        configId,
        dataDir: await defaultDataDir(options.dataDir),
      }),
  );
partners
  .command("settings")
  .description("the app's postback settings")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .addOption(
    new Option(
      "--share-device-data-without-consent <state>",
      "whether device ids of installs whose users were never asked go to ad networks",
    )
      .choices(["on", "off"])
      .makeOptionMandatory(),
  )
  .addOption(dataDirOption())
  .action(
    async (options: {
      appId: string;
      shareDeviceDataWithoutConsent: "on" | "off";
      dataDir?: string;
    }) => postbackSettingsCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );
partners
  .command("test")
  .description("send one test postback of a sample install (or event) and show the answer")
  .argument("<config-id>", "the configuration's id")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .option("--webhook", "the id is a webhook's")
  .option("--event <name>", "send this event (service_purchase) instead of the install")
  .addOption(new Option("--platform <os>", "the sample's platform").choices(["android", "ios"]))
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(
    async (
      configId: string,
      options: {
        appId: string;
        webhook?: boolean;
        event?: string;
        platform?: "android" | "ios";
        json?: boolean;
        dataDir?: string;
      },
    ) =>
      testPostbackCommand({ ...options, configId, dataDir: await defaultDataDir(options.dataDir) }),
  );
partners
  .command("log")
  .description("the latest attempts of the app's postbacks and webhooks, newest first")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .addOption(new Option("--limit <n>", "how many (1-200, default 50)").argParser(integer(1, 200)))
  .option("--cursor <cursor>", "the next page: the cursor the page before printed")
  .option("--json", "print the API's page: {data, next_cursor}")
  .addOption(dataDirOption())
  .action(
    async (options: {
      appId: string;
      limit?: number;
      cursor?: string;
      json?: boolean;
      dataDir?: string;
    }) => postbackLogCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );

const skadnetwork = program
  .command("skadnetwork")
  .description("iOS measured through Apple: conversion values and postbacks (docs/skadnetwork.md)");
const schemaCommand = skadnetwork.command("schema").description("the conversion value schema");
schemaCommand
  .command("set")
  .description("save a schema (the API's JSON body) as the app's next version")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .requiredOption("--file <path>", 'the schema: {"windows": [{"rules": [...]}, ...]}')
  .addOption(dataDirOption())
  .action(async (options: { appId: string; file: string; dataDir?: string }) =>
    setSchemaCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );
schemaCommand
  .command("show")
  .description("the app's schema, rule by rule")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(async (options: { appId: string; json?: boolean; dataDir?: string }) =>
    showSchemaCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );
skadnetwork
  .command("networks")
  .description("ad network ids and the media sources they are reported as")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .option(
    "--set <id=source>",
    "the app's own name of an id (repeat; replaces the app's names)",
    collectParam,
  )
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(
    async (options: {
      appId: string;
      set?: Record<string, string>;
      json?: boolean;
      dataDir?: string;
    }) => networksCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );
skadnetwork
  .command("report")
  .description("installs by network and campaign, values decoded, tiers (JSON)")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .requiredOption("--from <day>", "the first UTC day, YYYY-MM-DD")
  .requiredOption("--to <day>", "the last UTC day, YYYY-MM-DD, tomorrow at the latest")
  .option(
    "--include <which>",
    "count besides the postbacks Apple's production key verified: development (tests'), unverified, or both (development,unverified)",
  )
  .addOption(dataDirOption())
  .action(
    async (options: {
      appId: string;
      from: string;
      to: string;
      include?: string;
      dataDir?: string;
    }) => skadnetworkReportCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );
skadnetwork
  .command("export")
  .description("the app's postbacks from Apple of a window, as CSV")
  .requiredOption("--app-id <id>", "bundle identifier or package name")
  .requiredOption("--from <day>", "the first UTC day, YYYY-MM-DD")
  .requiredOption("--to <day>", "the last UTC day, YYYY-MM-DD")
  .requiredOption("-o, --output <file>", "the CSV file to write")
  .addOption(dataDirOption())
  .action(
    async (options: {
      appId: string;
      from: string;
      to: string;
      output: string;
      dataDir?: string;
    }) => exportPostbacksCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );
skadnetwork
  .command("unknown")
  .description("postbacks that named an App Store id no app has, counted by id")
  .requiredOption("--from <day>", "the first UTC day, YYYY-MM-DD")
  .requiredOption("--to <day>", "the last UTC day, YYYY-MM-DD")
  .addOption(dataDirOption())
  .action(async (options: { from: string; to: string; dataDir?: string }) =>
    unknownPostbacksCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );

const costs = program.command("costs").description("what campaigns cost (docs/api.md#costs)");
costs
  .command("import")
  .description("post a CSV of cost rows (the cost API's fields as its header) to the service")
  .requiredOption("--file <path>", "the CSV file")
  .addOption(
    new Option("--key <key>", "server API key (not needed with --dry-run)").env(
      "ATTRIBUTION_API_KEY",
    ),
  )
  .addOption(serviceUrlOption())
  .option("--dry-run", "check the file and send nothing")
  .addOption(dataDirOption())
  .action(
    async (options: {
      file: string;
      key?: string;
      url?: string;
      dryRun?: boolean;
      dataDir?: string;
    }) => {
      // A dry run checks the file alone: it needs no service and no key.
      if (!options.dryRun && options.key === undefined) {
        throw new Error((await costsModule()).MISSING_KEY);
      }
      const url = options.dryRun ? undefined : await runningServiceUrl(options);
      await importCostsCommand({ ...options, url });
    },
  );

const deletions = program
  .command("deletions")
  .description(
    "delete an install's data, as a person asked (docs/cli.md#deleting-an-installs-data)",
  );
deletions
  .command("request")
  .description("ask the service to delete an install's data, and print the request")
  .requiredOption("--service-id <id>", "the install's service_id, as the SDK reported it")
  .addOption(serverKeyOption())
  .addOption(serviceUrlOption())
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(
    async (options: {
      serviceId: string;
      key: string;
      url?: string;
      json?: boolean;
      dataDir?: string;
    }) => requestDeletionCommand({ ...options, url: await runningServiceUrl(options) }),
  );
deletions
  .command("status")
  .description("print where a deletion request stands")
  .argument("<request-id>", "the request_id `deletions request` printed")
  .addOption(serverKeyOption())
  .addOption(serviceUrlOption())
  .option("--json", "print JSON")
  .addOption(dataDirOption())
  .action(
    async (
      requestId: string,
      options: { key: string; url?: string; json?: boolean; dataDir?: string },
    ) => deletionStatusCommand({ ...options, requestId, url: await runningServiceUrl(options) }),
  );

const lake = program.command("lake").description("the lake on AWS");
lake
  .command("replay-errors")
  .description(
    "put the records Firehose sent to a table's error prefix back on its stream (the stack's outputs name the bucket and stream)",
  )
  .addOption(
    new Option("--table <table>", "lake table")
      .choices(LAKE_TABLES.map((table) => table.name))
      .makeOptionMandatory(),
  )
  .addOption(
    new Option("--bucket <name>", "the lake bucket (output LakeBucketName)")
      .env("ATTRIBUTION_AWS_LAKE_BUCKET")
      .makeOptionMandatory(),
  )
  .requiredOption("--stream <name>", "the table's stream (output <Table>StreamName)")
  .addOption(
    new Option(
      "--deletions-table <name>",
      "the deletions table (output DeletionsTableName): records of deleted installs are left out",
    )
      .env("ATTRIBUTION_AWS_DELETIONS_TABLE")
      .makeOptionMandatory(),
  )
  .option("--dry-run", "count what would be put, and change nothing")
  .action(
    async (options: {
      table: LakeTableName;
      bucket: string;
      stream: string;
      deletionsTable: string;
      dryRun?: boolean;
    }) => {
      await replayErrorsCommand(options);
    },
  );

program
  .command("demo")
  .description(
    "send realistic demo traffic for two apps through the service: links, ad touches, taps, installs, events",
  )
  .addOption(
    new Option("--days <n>", "days of history").argParser(integer(1, MAX_DEMO_DAYS)).default(14),
  )
  .addOption(
    new Option("--installs <n>", "installs per app").argParser(integer(1, 100_000)).default(2_000),
  )
  .addOption(new Option("--seed <n>", "random seed").argParser(integer(0, 2 ** 31)).default(1))
  .addOption(dataDirOption())
  .action(async (options: { days: number; installs: number; seed: number; dataDir?: string }) =>
    demoCommand({ ...options, dataDir: await defaultDataDir(options.dataDir) }),
  );

program
  .command("export")
  .description("page through an export window and write one file")
  .requiredOption(
    "--since <time>",
    'window start: a date (2026-11-01), an ISO 8601 time ("2026-11-01T10:00" or "2026-11-01 10:00:00", UTC unless it names an offset: Z, +02:00) or Unix seconds',
  )
  .addOption(
    new Option(
      "--format <format>",
      "output format (default: the one -o's extension names, .jsonl ndjson; else json)",
    ).choices(EXPORT_FORMATS),
  )
  .requiredOption("-o, --output <file>", "file to write")
  .addOption(serverKeyOption())
  .addOption(serviceUrlOption())
  .addOption(
    new Option("--page-size <n>", "events per request")
      .argParser(integer(1, 10_000))
      .default(10_000),
  )
  .option("--no-progress", "do not draw a progress bar")
  .addOption(dataDirOption())
  .action(
    async (options: {
      since: string;
      format?: ExportFormat;
      output: string;
      key: string;
      url?: string;
      pageSize: number;
      progress: boolean;
      dataDir?: string;
    }) => {
      // Checked before the service is looked for: a flag given wrong is said first.
      const format = await exportFormatOf(options.output, options.format);
      const since = await parseSince(options.since);
      const url = await runningServiceUrl(options);
      const count = await exportCommand({ ...options, url, since, format });
      console.log(`Wrote ${count} events to ${options.output}.`);
    },
  );

// A reader that stops early (`| head`) closes the pipe: the rest of the output goes nowhere.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

// `ATTRIBUTION_PORT=` (empty) is no port: the option, and the configuration, take their default.
unsetEmptyEnv(program);
// A misspelled setting (`ATTRIBUTION_PROT`) is read by nothing: said before the command runs.
program.hook("preAction", async () => {
  const names = Object.keys(process.env).filter((name) => /^attribution_/i.test(name));
  if (names.length === 0) return;
  const [{ misspelledSettings, misspelledSettingWarning }, { EMBEDDED_SETTINGS }] =
    await Promise.all([
      import("../config/misspelled-settings.ts"),
      import("../config/embedded.ts"),
    ]);
  const settings = [...EMBEDDED_SETTINGS, ...optionVariables(program)];
  for (const found of misspelledSettings(names, settings)) {
    console.warn(misspelledSettingWarning(found));
  }
});
program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
