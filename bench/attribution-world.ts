/**
 * A generated world for the attribution benchmark, with the truth of every install: what
 * caused it (a tap whose click id the Play referrer brings back, a network's touch on the
 * device's advertising id, a tap with no id from where the install came, or nothing) and
 * which touch. Seeded, so a seed always gives the same world.
 *
 * It holds what real traffic holds around a probabilistic match, where a wrong one comes
 * from: both platforms, with iOS browsers that name only `iPhone` and the OS version;
 * households whose phones are often the same model on the same OS version, behind one home
 * address; offices whose Wi-Fi puts many phones behind one public address; carrier NAT pools
 * on public ranges, whose phones may leave by another address of the pool between a tap and
 * the install; IPv6 privacy addresses within a home's /64, and a mobile phone's own /64;
 * dual stack, where a tap over IPv4 may be followed by an install over IPv6 or the reverse;
 * in-app browsers; organic installs next to a housemate's or a stranger's tap; phones whose
 * clock is minutes off, most of which send their clock with each request, and some reported
 * by a client that sends no clock and only the phone's own Play times; and clicks injected
 * after an install began.
 *
 * It also holds the app's users, who send from the same addresses whether or not they ever
 * tapped an ad: what ingestion records of who sends from where (`sightings`). The app had
 * users before these installs, and each install becomes one: they send from home, from their
 * carrier's NAT, from their office's Wi-Fi and from cafés, and some share a home with another
 * user (a housemate who installed the app before, organically or not). Few of them tap an ad
 * on a given day, so an address's taps alone may read one home where hundreds use the app.
 *
 * Installs are spread over a few days before `firstOpen`, so that each install's windows
 * see the touches that real density would put in them.
 */

import { createRandom, type Random } from "../src/demo/prng.ts";
import type { InstallFacts } from "../src/domain/install-facts.ts";
import type { AddressSighting } from "../src/ports/address-crowds.ts";
import type { Touch } from "../src/ports/touches.ts";
import { NO_CAMPAIGN } from "../src/touches/touch.ts";
import { deviceTraits } from "../src/touches/user-agent.ts";

export type Cause = "click_id" | "advertising_id" | "probabilistic" | "organic";

export interface WorldInstall {
  /** The install's id, which its requests and so its sightings carry. */
  readonly serviceId: string;
  readonly facts: InstallFacts;
  readonly cause: Cause;
  /** The touch that caused it, for every cause but organic. */
  readonly touchId: string | null;
  /** The scenario it was made by (see below), for reading the figures. */
  readonly scenario: string;
}

export interface World {
  readonly touches: Touch[];
  readonly installs: WorldInstall[];
  /**
   * Which installs sent from which address, by the service's clock, as ingestion records them:
   * each install's own report, and the requests of the app's users' sessions.
   */
  readonly sightings: AddressSighting[];
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** How long before `firstOpen` the installs are spread over. */
const SPAN = 3 * 24 * HOUR;
const DAY = 24 * HOUR;

// --- Phones -------------------------------------------------------------------------------

interface Phone {
  readonly os: "android" | "ios";
  /** As the SDK reports it: `14`, `17.4.1`. */
  readonly osVersion: string;
  /** As the SDK reports it: `Pixel 8`, `iPhone15,2`. */
  readonly model: string;
  /** GAID, or an IDFA the user let the app read; null without one. */
  readonly maid: string | null;
  /** The phone's clock minus the true time. */
  readonly skewMs: number;
  /** Whether its SDK sends its clock (`sent_at`) with each request. */
  readonly sendsClock: boolean;
  /** Chrome's major version, which its full agents carry. */
  readonly chrome: number;
  /** The carrier it uses off Wi-Fi. */
  readonly carrier: Carrier;
  /** Its own /64 on the carrier's IPv6, when the carrier gives one. */
  readonly mobilePrefix: string | null;
  /** The language it is set to, which its browsers send first in `Accept-Language`. */
  readonly language: string;
}

/**
 * Android phones by popularity: a few best sellers hold a large share, as in any market, so
 * two strangers' phones are the same model more often than a uniform pick would say.
 */
const ANDROID_MODELS: readonly (readonly [string, string, number])[] = [
  ["14", "SM-A546B", 9],
  ["13", "SM-A536B", 7],
  ["14", "SM-S918B", 6],
  ["14", "Pixel 8", 5],
  ["14", "Pixel 7a", 4],
  ["13", "SM-S911B", 4],
  ["12", "SM-A127F", 4],
  ["11", "SM-A125F", 3],
  ["13", "SM-G991B", 3],
  ["12", "M2101K6G", 3],
  ["13", "2201117TG", 3],
  ["12", "M2003J15SC", 2],
  ["14", "CPH2451", 2],
  ["13", "CPH2237", 2],
  ["13", "moto g84 5G", 2],
  ["12", "moto g(60)", 2],
  ["13", "RMX3630", 2],
  ["12", "V2130", 1],
  ["13", "VOG-L29", 1],
  ["14", "NE2213", 1],
  ["12", "TECNO KG5k", 2],
  ["14", "Pixel 6", 2],
];

/** iPhone models by share, and iOS versions by share: most phones run a recent release. */
const IPHONE_MODELS: readonly (readonly [string, number])[] = [
  ["iPhone15,2", 12],
  ["iPhone15,3", 8],
  ["iPhone16,1", 10],
  ["iPhone16,2", 9],
  ["iPhone14,5", 12],
  ["iPhone14,2", 7],
  ["iPhone13,2", 9],
  ["iPhone14,7", 8],
  ["iPhone12,1", 6],
  ["iPhone17,1", 5],
  ["iPhone17,3", 4],
];
const IOS_VERSIONS: readonly (readonly [string, number])[] = [
  ["18.1", 30],
  ["18.0.1", 14],
  ["18.0", 6],
  ["17.6.1", 16],
  ["17.5.1", 8],
  ["17.4.1", 6],
  ["16.7.10", 10],
  ["15.8.3", 5],
  ["17.7", 5],
];

/**
 * How often a housemate's phone is the same model on the same OS version as another
 * member's: families buy alike and update together, iPhone households most.
 */
const IDENTICAL_HOUSEMATE = { android: 0.15, ios: 0.3 } as const;

interface Carrier {
  /** Public IPv4 addresses of its NAT: every phone of the carrier leaves by one of them. */
  readonly pool: readonly string[];
  /** Whether it gives each phone an IPv6 /64 of its own. */
  readonly ipv6: boolean;
}

// --- Agents --------------------------------------------------------------------------------

/**
 * What a phone's browser sends when it taps a link: on Android, Chrome's reduced agent (no
 * model, a frozen version), or the full one that in-app browsers (WebViews) and some
 * browsers still send; on iOS, Safari's or Chrome's (`iPhone` and the OS version, never the
 * model), or an in-app browser's, which names the model (`FBDV/iPhone15,2`, Instagram's
 * `(iPhone15,2; iOS 17_4_1; ...)`) and its language.
 */
const browserAgent = (random: Random, phone: Phone, language: string): string => {
  if (phone.os === "android") {
    const kind = random.weighted([
      ["chrome-reduced", 50],
      ["in-app", 35],
      ["firefox", 5],
      ["samsung", 10],
    ] as const);
    if (kind === "chrome-reduced") {
      return `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${phone.chrome}.0.0.0 Mobile Safari/537.36`;
    }
    if (kind === "firefox") {
      return `Mozilla/5.0 (Android ${phone.osVersion}; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0`;
    }
    if (kind === "samsung") {
      return `Mozilla/5.0 (Linux; Android ${phone.osVersion}; SAMSUNG ${phone.model}) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36`;
    }
    return `Mozilla/5.0 (Linux; Android ${phone.osVersion}; ${phone.model} Build/AP1A.240405.002; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/${phone.chrome}.0.0.0 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/458.0.0.50.108;]`;
  }
  const full = phone.osVersion.replaceAll(".", "_");
  // Safari writes major and minor only.
  const [majorPart, minorPart = "0"] = phone.osVersion.split(".");
  const short = `${majorPart}_${minorPart}`;
  const kind = random.weighted([
    ["safari", 55],
    ["chrome", 8],
    ["facebook", 22],
    ["instagram", 15],
  ] as const);
  if (kind === "safari") {
    return `Mozilla/5.0 (iPhone; CPU iPhone OS ${short} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${short.replace("_", ".")} Mobile/15E148 Safari/604.1`;
  }
  if (kind === "chrome") {
    return `Mozilla/5.0 (iPhone; CPU iPhone OS ${short} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/${phone.chrome}.0.6367.88 Mobile/15E148 Safari/604.1`;
  }
  const locale = language.replace("-", "_");
  if (kind === "facebook") {
    return `Mozilla/5.0 (iPhone; CPU iPhone OS ${full} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/21E236 [FBAN/FBIOS;FBAV/458.0.0.36.108;FBBV/596789000;FBDV/${phone.model};FBMD/iPhone;FBSN/iOS;FBSV/${phone.osVersion};FBSS/3;FBID/phone;FBLC/${locale};FBOP/5;FBRV/0]`;
  }
  return `Mozilla/5.0 (iPhone; CPU iPhone OS ${full} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/21E236 Instagram 326.0.3.30.91 (${phone.model}; iOS ${full}; ${locale}; ${language.slice(0, 2)}; scale=3.00; 1179x2556; 580117429)`;
};

// --- The world -----------------------------------------------------------------------------

export const generateWorld = (options: {
  appId: string;
  installs: number;
  /** The latest first open; installs are spread over the three days before it. */
  firstOpen: Date;
  seed?: number;
}): World => {
  const random = createRandom(options.seed ?? 7);
  const end = options.firstOpen.getTime();
  const touches: Touch[] = [];
  const installs: WorldInstall[] = [];
  const sightings: AddressSighting[] = [];
  let clicks = 0;
  let addresses = 0;

  /** A public IPv4 address of its own (81.0.0.0/8 to 83.0.0.0/8 are public unicast). */
  const publicIpv4 = () => {
    addresses++;
    return `${81 + (addresses >> 16)}.${(addresses >> 8) & 255}.${addresses & 255}.${random.int(1, 254)}`;
  };
  /** A /64 of its own, in public space (2a02::/16). */
  const ipv6Prefix = () => `2a02:${random.hex(4)}:${random.hex(4)}:${random.hex(4)}`;
  /** A privacy address: a random interface id in the prefix, new for each connection. */
  const privacyAddress = (prefix: string) =>
    `${prefix}:${random.hex(4)}:${random.hex(4)}:${random.hex(4)}:${random.hex(4)}`;

  // Carriers: a few NAT pools of public addresses in 84.0.0.0/8, shared by every phone on them.
  const carriers: Carrier[] = Array.from({ length: 4 }, (_, c) => ({
    pool: Array.from({ length: 24 }, (_, i) => `84.${c}.${i}.${random.int(1, 254)}`),
    ipv6: c % 2 === 0,
  }));

  /** The languages phones are set to: mostly one market's, some others. */
  const language = () =>
    random.weighted([
      ["en-US", 60],
      ["es-US", 15],
      ["en-GB", 10],
      ["fr-FR", 5],
      ["de-DE", 5],
      ["zh-CN", 5],
    ] as const);

  /** A phone; a housemate's shares its language mostly, and is sometimes the same phone. */
  const newPhone = (os: "android" | "ios", housemate?: Phone, identical = false): Phone => {
    const [osVersion, model] =
      housemate && identical
        ? [housemate.osVersion, housemate.model]
        : os === "android"
          ? (() => {
              const [version, name] = random.weighted(
                ANDROID_MODELS.map(([v, m, w]) => [[v, m] as const, w] as const),
              );
              return [version, name];
            })()
          : [random.weighted(IOS_VERSIONS), random.weighted(IPHONE_MODELS)];
    const carrier = random.pick(carriers);
    // About 2% of phones have a clock minutes off, either way; most SDKs send their clock.
    const skewMs = random.chance(0.02)
      ? (random.chance(0.5) ? -1 : 1) * random.between(2, 40) * MINUTE
      : random.between(-2, 2) * SECOND;
    // An Android phone has a GAID unless the user deleted it; an iPhone's IDFA is readable
    // only when the user allowed tracking (about a quarter do).
    const maid = random.chance(os === "android" ? 0.85 : 0.25) ? random.uuid() : null;
    return {
      os,
      osVersion,
      model,
      maid,
      skewMs,
      sendsClock: random.chance(0.9),
      chrome: random.int(122, 126),
      carrier,
      mobilePrefix: carrier.ipv6 ? ipv6Prefix() : null,
      // Housemates mostly share a language.
      language: housemate && random.chance(0.9) ? housemate.language : language(),
    };
  };

  // Places a phone connects from.
  interface Place {
    readonly kind: "home" | "office" | "cellular" | "cafe";
    /** The address of one request from the phone; `previous` is that of a request before. */
    address(phone: Phone, previous?: string): string;
  }

  /**
   * The app's users, each sending from its places in sessions (`sessionsOf` below): the users
   * it had before these installs, and each install from its first open on.
   */
  interface AppUser {
    readonly serviceId: string;
    readonly phone: Phone;
    readonly home: Place;
    readonly office: Place | null;
    /** From when it sends (true time). */
    readonly since: number;
  }
  const users: AppUser[] = [];
  /** A user the app had before: it sends from the first day on. */
  const earlierUser = (home: Place) =>
    users.push({
      serviceId: `u${users.length + 1}`,
      phone: newPhone(random.chance(0.55) ? "android" : "ios"),
      home,
      office: random.chance(0.3) ? newOffice() : null,
      since: Number.NEGATIVE_INFINITY,
    });

  /**
   * A home: its own public IPv4 and, in half of them, an IPv6 /64 the phones prefer. In some,
   * someone already uses the app: a housemate whose sessions send from it.
   */
  const newHome = (): Place => {
    const v4 = publicIpv4();
    const v6 = random.chance(0.5) ? ipv6Prefix() : null;
    const home: Place = {
      kind: "home",
      // Dual stack: most requests go over IPv6, some over IPv4 (a v4-only path, a fallback).
      address: () => (v6 && random.chance(0.85) ? privacyAddress(v6) : v4),
    };
    if (random.chance(0.12)) earlierUser(home);
    return home;
  };
  /** An office's guest Wi-Fi: one public address for every phone in the building. */
  const offices = Array.from({ length: 25 }, () => publicIpv4());
  const newOffice = (): Place => {
    const ip = random.pick(offices);
    return { kind: "office", address: () => ip };
  };
  /**
   * A café's Wi-Fi: one public address for whoever passes by, many of them the app's users,
   * few of whom tap an ad there. Some cafés are far busier than others.
   */
  const cafes = Array.from({ length: 40 }, () => publicIpv4());
  const newCafe = (): Place => {
    const ip = random.weighted(cafes.map((address, i) => [address, cafes.length - i] as const));
    return { kind: "cafe", address: () => ip };
  };
  /**
   * Mobile data: the phone's own /64 on a carrier that gives one (mostly preferred), else an
   * address of the carrier's NAT pool, which may change between a tap and the install.
   */
  const cellular: Place = {
    kind: "cellular",
    address: (phone, previous) => {
      if (phone.mobilePrefix && random.chance(0.85)) return privacyAddress(phone.mobilePrefix);
      const pool = phone.carrier.pool;
      if (previous && pool.includes(previous) && random.chance(0.7)) return previous;
      return random.pick(pool);
    },
  };
  /**
   * Where an install (or a tap) happens: mostly at home, often on mobile data, some at work or
   * in a café.
   */
  const somePlace = (home: Place): Place =>
    random.weighted([
      [home, 55],
      [cellular, 32],
      [newOffice(), 9],
      [newCafe(), 4],
    ] as const);

  const tap = (
    at: number,
    phone: Phone,
    ip: string | null,
    overrides: Partial<Touch> = {},
  ): Touch => {
    const userAgent = browserAgent(random, phone, phone.language);
    const traits = deviceTraits(userAgent);
    const time = new Date(at).toISOString();
    const made: Touch = {
      clickId: `w${++clicks}`,
      appId: options.appId,
      touchType: "click",
      source: "link",
      touchTime: time,
      receivedAt: time,
      deeplinkId: null,
      mediaSource: random.pick(["facebook_ads", "tiktok", "googleadwords_int", "unity_ads"]),
      ...NO_CAMPAIGN,
      networkClickId: null,
      ip,
      userAgent,
      platform: traits.platform,
      osVersion: traits.osVersion,
      deviceModel: traits.deviceModel,
      language: phone.language,
      country: "US",
      maid: phone.maid,
      params: {},
      urlParams: {},
      cost: null,
      ...overrides,
    };
    touches.push(made);
    return made;
  };

  /**
   * What the service learns of an install that opened at `at` (true time) from `ip`, after a
   * tap at `tappedAt` if one led to it.
   */
  const factsOf = (phone: Phone, at: number, ip: string, tappedAt?: number): InstallFacts => {
    // The install reaches the service a moment after the first open; the SDK reads its own
    // clock for both the first open and `sent_at`.
    const latency = random.between(0.2, 3) * SECOND;
    const sentAt = at + random.between(0, 5) * SECOND;
    // Play says when the install began, by its server clock: the download, after the tap.
    const began = Math.max(at - random.between(20, 120) * SECOND, (tappedAt ?? 0) + 5 * SECOND);
    return {
      appId: options.appId,
      os: phone.os,
      osVersion: phone.osVersion,
      deviceModel: phone.model,
      firstOpenTime: new Date(at + phone.skewMs).toISOString(),
      receivedAt: new Date(sentAt + latency).toISOString(),
      clockOffsetMs: phone.sendsClock ? Math.round(latency - phone.skewMs) : null,
      maid: phone.maid,
      attStatus: phone.os === "ios" ? (phone.maid ? "authorized" : "denied") : null,
      referrerClickId: null,
      openUrlClickId: null,
      installBeganAt:
        phone.os === "android" && random.chance(0.9) ? new Date(began).toISOString() : null,
      deviceReferrerClickAt: null,
      deviceInstallBeganAt: null,
      ip,
      userAgent: null,
      platformAdsToken: null,
    };
  };

  /** A true time as the phone's clock gives it to Play's referrer API: whole seconds, ISO. */
  const playTime = (phone: Phone, at: number) =>
    new Date(Math.floor((at + phone.skewMs) / SECOND) * SECOND).toISOString();
  /** When Play stamps the click of a tap that opened the store: a moment after the tap. */
  const playClickOf = (tappedAt: number) => tappedAt + random.between(0.5, 4) * SECOND;

  /**
   * How long before the first open the tap that caused an install was: most open the app
   * within minutes of the store page, a quarter come back to it hours later (some past the
   * probabilistic window).
   */
  const tapToOpen = () =>
    // Log-normal around 3 minutes for the prompt ones (Box-Muller from two uniform draws).
    random.chance(0.75)
      ? Math.min(
          50 * MINUTE,
          Math.exp(
            Math.log(3 * MINUTE) +
              0.9 *
                Math.sqrt(-2 * Math.log(1 - random.next())) *
                Math.cos(2 * Math.PI * random.next()),
          ),
        )
      : random.between(0.3, 8) * HOUR;

  const when = () => end - random.next() * SPAN;
  /**
   * An install of `phone`, which lives in `home`: its report is a sighting of its address,
   * and it is a user of the app from then on.
   */
  const push = (
    scenario: string,
    who: { readonly phone: Phone; readonly home: Place },
    facts: InstallFacts,
    cause: Cause,
    touchId: string | null = null,
  ) => {
    const serviceId = `i${installs.length + 1}`;
    installs.push({ serviceId, facts, cause, touchId, scenario });
    if (facts.ip) {
      sightings.push({ appId: options.appId, serviceId, ip: facts.ip, at: facts.receivedAt });
    }
    users.push({
      serviceId,
      ...who,
      office: random.chance(0.3) ? newOffice() : null,
      since: Date.parse(facts.receivedAt),
    });
  };

  // --- Scenarios: each makes one install and what real traffic puts around it. ---------------

  /**
   * A tap on the app's link on Android; Play's referrer brings its click id back, with Play's
   * click and install begin by the phone's clock and, from the SDK, by Play's server clock too
   * (7%).
   */
  const tapWithReferrer = () => {
    const phone = newPhone("android");
    const home = newHome();
    const place = somePlace(home);
    const at = when();
    const tappedAt = at - random.between(0.5, 48 * 60) * MINUTE;
    const touch = tap(tappedAt, phone, place.address(phone));
    const facts = factsOf(phone, at, place.address(phone));
    // The referrer's answer that carries the click id carries Play's install begin too.
    const began = Math.max(at - random.between(20, 120) * SECOND, tappedAt + 5 * SECOND);
    push(
      "tap with referrer",
      { phone, home },
      {
        ...facts,
        referrerClickId: touch.clickId,
        installBeganAt: new Date(began).toISOString(),
        deviceReferrerClickAt: playTime(phone, playClickOf(tappedAt)),
        deviceInstallBeganAt: playTime(phone, began),
      },
      "click_id",
      touch.clickId,
    );
  };

  /**
   * The same, reported by a client that sends no clock (a server-to-server client, another
   * SDK) and only the phone's own Play times, from a phone whose clock is minutes off, either
   * way: only the referrer's tap tells the phone's clock (1%).
   */
  const tapWithReferrerNoClock = () => {
    const skewMs = (random.chance(0.5) ? -1 : 1) * random.between(2, 40) * MINUTE;
    const phone = { ...newPhone("android"), skewMs, sendsClock: false };
    const home = newHome();
    const place = somePlace(home);
    const at = when();
    const tappedAt = at - random.between(0.5, 48 * 60) * MINUTE;
    const touch = tap(tappedAt, phone, place.address(phone));
    const facts = factsOf(phone, at, place.address(phone));
    const began = Math.max(at - random.between(20, 120) * SECOND, tappedAt + 5 * SECOND);
    push(
      "tap with referrer, no clock sent",
      { phone, home },
      {
        ...facts,
        referrerClickId: touch.clickId,
        installBeganAt: null,
        deviceReferrerClickAt: playTime(phone, playClickOf(tappedAt)),
        deviceInstallBeganAt: playTime(phone, began),
      },
      "click_id",
      touch.clickId,
    );
  };

  /**
   * Click injection: an app on the phone sees the install begin and fires a click through the
   * app's link, whose click id the referrer then carries; the install is organic. Half come
   * without Play's server times (a client that sends only the phone's), some from a phone
   * whose clock is minutes off, and most of those without a clock of their own (0.5%).
   */
  const injectedClick = () => {
    const phone = newPhone("android");
    const home = newHome();
    const place = somePlace(home);
    const at = when();
    const began = at - random.between(30, 120) * SECOND;
    const injectedAt = began + random.between(3, 25) * SECOND;
    const touch = tap(injectedAt, { ...phone, maid: null }, place.address(phone));
    const facts = factsOf(phone, at, place.address(phone));
    const serverTimes = random.chance(0.5);
    push(
      "organic with an injected click",
      { phone, home },
      {
        ...facts,
        referrerClickId: touch.clickId,
        installBeganAt: serverTimes ? new Date(began).toISOString() : null,
        deviceReferrerClickAt: playTime(phone, playClickOf(injectedAt)),
        deviceInstallBeganAt: playTime(phone, began),
      },
      "organic",
    );
  };

  /**
   * A network's click (or, a fifth of the time, an impression) reported server to server with
   * the phone's advertising id, seen anywhere in the last days (12% on Android; 4% on iOS, the
   * quarter of iPhone users who allow tracking).
   */
  const touchOnAdvertisingId = (os: "android" | "ios") => {
    const phone = { ...newPhone(os), maid: random.uuid() };
    const home = newHome();
    const at = when();
    const impression = random.chance(0.2);
    const lead = impression ? random.between(0.1, 20) * HOUR : random.between(0.1, 5 * 24) * HOUR;
    const touch = tap(at - lead, phone, newHome().address(phone), {
      source: "network",
      touchType: impression ? "impression" : "click",
    });
    push(
      "touch on advertising id",
      { phone, home },
      factsOf(phone, at, somePlace(home).address(phone), at - lead),
      "advertising_id",
      touch.clickId,
    );
  };

  /**
   * A tap in a browser that carried no id to the store (iOS, or an Android link that lost its
   * referrer), then the install. Most install where they tapped; some tapped on mobile data
   * and installed at home, or the reverse, and cannot be matched by address (9% on Android,
   * 13% on iOS, where no referrer carries a click id). On iOS a quarter of them allow the app
   * to track (its install waited for their answer): the install carries their IDFA, which no
   * tap in a browser does, and only they may be matched by address.
   */
  const tapThenInstall = (os: "android" | "ios") => {
    const phone = newPhone(os);
    const home = newHome();
    const tapPlace = somePlace(home);
    const at = when();
    const tapIp = tapPlace.address(phone);
    const tappedAt = at - tapToOpen();
    const touch = tap(tappedAt, { ...phone, maid: null }, tapIp);
    const installPlace = random.chance(0.85) ? tapPlace : somePlace(home);
    const facts = factsOf(phone, at, installPlace.address(phone, tapIp), tappedAt);
    const allowed = os === "ios" && random.chance(0.25);
    push(
      "tap then install",
      { phone, home },
      allowed
        ? { ...facts, maid: random.uuid(), attStatus: "authorized" }
        : { ...facts, maid: null, attStatus: os === "ios" ? "denied" : null },
      "probabilistic",
      touch.clickId,
    );
  };

  /**
   * An install nobody's ad caused, at home, on mobile data, at work or in a café (18% Android,
   * 14% iOS).
   */
  const organic = (os: "android" | "ios") => {
    const phone = newPhone(os);
    const home = newHome();
    const at = when();
    push("organic", { phone, home }, factsOf(phone, at, somePlace(home).address(phone)), "organic");
  };

  /**
   * A household: a housemate taps the app's ad on their own phone (often the same model on the
   * same OS version: families buy alike and update together) and does not install; within the
   * window another member installs the app organically at home (3% on each platform).
   */
  const organicAfterHousemateTap = (os: "android" | "ios") => {
    const home = newHome();
    const mine = newPhone(os);
    const theirs = newPhone(os, mine, random.chance(IDENTICAL_HOUSEMATE[os]));
    const at = when();
    tap(at - random.between(1, 6 * 60) * MINUTE, { ...theirs, maid: null }, home.address(theirs));
    push(
      "organic after a housemate's tap",
      { phone: mine, home },
      factsOf(mine, at, home.address(mine)),
      "organic",
    );
  };

  /**
   * Word of mouth: a housemate taps the ad and installs the app, shows it, and another member
   * installs it organically soon after, on the home's Wi-Fi. The first install is the tap's
   * (1.5% of draws on each platform, two installs each).
   */
  const housemateShowsIt = (os: "android" | "ios") => {
    const home = newHome();
    const theirs = newPhone(os);
    const mine = newPhone(os, theirs, random.chance(IDENTICAL_HOUSEMATE[os]));
    const tapIp = home.address(theirs);
    const at = when();
    const lead = random.between(1, 8) * MINUTE;
    const touch = tap(at - lead, { ...theirs, maid: null }, tapIp);
    push(
      "tap then install",
      { phone: theirs, home },
      { ...factsOf(theirs, at, home.address(theirs, tapIp), at - lead), maid: null },
      "probabilistic",
      touch.clickId,
    );
    const later = at + random.between(5, 120) * MINUTE;
    push(
      "organic after a housemate's install",
      { phone: mine, home },
      factsOf(mine, later, home.address(mine)),
      "organic",
    );
  };

  /**
   * An organic install on mobile data, at the office or in a café, where strangers' taps from
   * the same public address are the background ones below, and the app's users send from it
   * (8% Android, 6% iOS).
   */
  const organicOnSharedAddress = (os: "android" | "ios") => {
    const phone = newPhone(os);
    const place = random.weighted([
      [cellular, 60],
      [newOffice(), 20],
      [newCafe(), 20],
    ] as const);
    push(
      "organic on a shared address",
      { phone, home: newHome() },
      factsOf(phone, when(), place.address(phone)),
      "organic",
    );
  };

  /**
   * Shares of the scenarios, in percent of draws: a mid-sized app buying ads on both stores,
   * about 60% of its installs on Android, more than half of them organic.
   */
  const scenarios: readonly (readonly [() => void, number])[] = [
    [tapWithReferrer, 7],
    [tapWithReferrerNoClock, 1],
    [injectedClick, 0.5],
    [() => touchOnAdvertisingId("android"), 12],
    [() => touchOnAdvertisingId("ios"), 4],
    [() => tapThenInstall("android"), 9],
    [() => tapThenInstall("ios"), 13],
    [() => organic("android"), 18],
    [() => organic("ios"), 14],
    [() => organicAfterHousemateTap("android"), 3],
    [() => organicAfterHousemateTap("ios"), 3],
    [() => housemateShowsIt("android"), 1.5],
    [() => housemateShowsIt("ios"), 1.5],
    [() => organicOnSharedAddress("android"), 8],
    [() => organicOnSharedAddress("ios"), 6],
  ];
  while (installs.length < options.installs) random.weighted(scenarios)();
  installs.length = options.installs;

  /**
   * Taps that lead to no install, about as many as the installs (most taps do not install):
   * strangers on the carriers' NAT pools, on office Wi-Fi and in cafés, who share their address
   * with the installs there, and homes of their own.
   */
  for (let i = 0; i < options.installs; i++) {
    const phone = newPhone(random.chance(0.55) ? "android" : "ios");
    const place = random.weighted([
      [cellular, 45],
      [newOffice(), 15],
      [newCafe(), 4],
      [newHome(), 40],
    ] as const);
    tap(
      end - random.next() * (SPAN + 6 * HOUR),
      { ...phone, maid: random.chance(0.3) ? phone.maid : null },
      place.address(phone),
    );
  }

  // --- The app's users ------------------------------------------------------------------------

  // Users it had before, about as many as the installs of these days (and the housemates some
  // homes above already hold).
  for (let i = 0; i < options.installs; i++) earlierUser(newHome());

  /**
   * Each user's sessions, each a request from where the phone is: on most days a few, at home
   * mostly, on mobile data often, at work or in a café some of the time. From the day before
   * the first install to the end, so that every install's day is full.
   */
  const first = end - SPAN - DAY;
  for (const user of users) {
    for (let day = first; day < end; day += DAY) {
      if (!random.chance(0.6)) continue;
      const sessions = random.int(1, 4);
      for (let n = 0; n < sessions; n++) {
        const at = day + random.next() * DAY;
        if (at < user.since || at > end) continue;
        const place = random.weighted([
          [user.home, 60],
          [cellular, 26],
          [user.office ?? user.home, 9],
          [newCafe(), 5],
        ] as const);
        sightings.push({
          appId: options.appId,
          serviceId: user.serviceId,
          ip: place.address(user.phone),
          at: new Date(at).toISOString(),
        });
      }
    }
  }
  return { touches, installs, sightings };
};
