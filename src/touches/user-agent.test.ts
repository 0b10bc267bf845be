import { describe, expect, it } from "vitest";
import { deviceTraits, sentDeviceHints, sfString } from "./user-agent.ts";

const PIXEL =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/UQ1A.240205.004) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.6261.64 Mobile Safari/537.36";
const REDUCED =
  "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const DESKTOP =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

describe("deviceTraits", () => {
  it("reads platform, OS version and model from real browser agents", () => {
    expect(deviceTraits(PIXEL)).toEqual({
      platform: "android",
      osVersion: "14",
      deviceModel: "Pixel 8",
      isBot: false,
      reducedAgent: false,
      withoutGooglePlay: false,
    });
    expect(deviceTraits(IPHONE)).toEqual({
      platform: "ios",
      osVersion: "17.4",
      deviceModel: "iPhone",
      isBot: false,
      reducedAgent: false,
      withoutGooglePlay: false,
    });
    expect(deviceTraits(DESKTOP)).toEqual({
      platform: "other",
      osVersion: null,
      deviceModel: null,
      isBot: false,
      reducedAgent: false,
      withoutGooglePlay: false,
    });
  });

  it("names no model for a computer, though its agent names one", () => {
    const mac =
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15";
    expect(deviceTraits(mac)).toMatchObject({
      platform: "other",
      osVersion: null,
      deviceModel: null,
    });
  });

  it("takes an iPad's in-app browser that writes a Mac's agent for the iPad it is, and iPad Safari for a desktop", () => {
    const facebookOnIpad =
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/450.0.0.38.108;FBDV/iPad13,16;FBMD/iPad;FBSN/iPadOS;FBSV/17.4;FBLC/en_US]";
    expect(deviceTraits(facebookOnIpad)).toMatchObject({
      platform: "ios",
      osVersion: null,
      deviceModel: "iPad",
    });
    const ipadSafari =
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15";
    expect(deviceTraits(ipadSafari).platform).toBe("other");
  });

  it("reads the iOS release Safari 26 names as its own version, not the frozen one its agent writes", () => {
    const safari26 = (os: string, version: string) =>
      `Mozilla/5.0 (iPhone; CPU iPhone OS ${os} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${version} Mobile/15E148 Safari/604.1`;
    expect(deviceTraits(safari26("18_6", "26.0")).osVersion).toBe("26.0");
    expect(deviceTraits(safari26("18_7", "26.3")).osVersion).toBe("26.3");
    // Safari 18.6 on iOS 18.6 says its release truly.
    expect(deviceTraits(safari26("18_6", "18.6")).osVersion).toBe("18.6");
    expect(deviceTraits(safari26("17_4", "17.4")).osVersion).toBe("17.4");
    // A web view's frozen release may be iOS 18's or 26's: none, unless the app names it.
    const webView =
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148";
    expect(deviceTraits(webView).osVersion).toBeNull();
    expect(
      deviceTraits(
        `${webView} [FBAN/FBIOS;FBAV/450.0.0.38.108;FBDV/iPhone16,2;FBMD/iPhone;FBSN/iOS;FBSV/26.1;FBLC/en_US]`,
      ).osVersion,
    ).toBe("26.1");
    expect(
      deviceTraits(
        `${webView} Instagram 330.0.0.40.92 (iPhone16,2; iOS 26_1; en_US; en; scale=3.00; 1179x2556; 599998898)`,
      ).osVersion,
    ).toBe("26.1");
  });

  it("takes a HarmonyOS phone that runs Android apps for the Android phone it taps as", () => {
    const harmony =
      "Mozilla/5.0 (Linux; Android 10; HarmonyOS; NOH-NX9; HMSCore 6.11.0.302) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0.4844.88 HuaweiBrowser/14.0.0.300 Mobile Safari/537.36";
    expect(deviceTraits(harmony)).toEqual({
      platform: "android",
      osVersion: "10",
      deviceModel: "NOH-NX9",
      isBot: false,
      reducedAgent: false,
      // On Huawei's own services (HMSCore): AppGallery, no Google Play.
      withoutGooglePlay: true,
    });
    // HarmonyOS NEXT runs no Android apps, and says no Android.
    const next =
      "Mozilla/5.0 (Phone; OpenHarmony 4.1) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/114.0.0.0 Safari/537.36 ArkWeb/4.1.6.1 Mobile HuaweiBrowser/5.0.4.300";
    expect(deviceTraits(next).platform).toBe("other");
  });

  it("takes a Windows phone that names Android in its agent for no Android phone", () => {
    // Edge on Windows 10 Mobile names Android so that sites serve it their mobile pages; the
    // phone installs from no Android store.
    const lumia =
      "Mozilla/5.0 (Windows Phone 10.0; Android 6.0.1; Microsoft; Lumia 950) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/52.0.2743.116 Mobile Safari/537.36 Edge/15.15063";
    expect(deviceTraits(lumia)).toMatchObject({
      platform: "other",
      osVersion: null,
      deviceModel: null,
    });
  });

  it("takes nothing from Chrome's reduced agent but the platform", () => {
    expect(deviceTraits(REDUCED)).toEqual({
      platform: "android",
      osVersion: null,
      deviceModel: null,
      isBot: false,
      reducedAgent: true,
      withoutGooglePlay: false,
    });
  });

  it("knows the Android devices that have no Google Play: Amazon's Fire, Huawei's on its own services", () => {
    const fireTablet =
      "Mozilla/5.0 (Linux; Android 9; KFMAWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/120.3.1 like Chrome/120.0.6099.230 Safari/537.36";
    const fireTv =
      "Mozilla/5.0 (Linux; Android 9; AFTMM Build/PS7633) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.230 Mobile Safari/537.36";
    const huawei =
      "Mozilla/5.0 (Linux; Android 10; ELS-NX9; HMSCore 6.13.0.302) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0.4844.88 HuaweiBrowser/14.0.5.302 Mobile Safari/537.36";
    for (const agent of [fireTablet, fireTv, huawei]) {
      expect(deviceTraits(agent), agent).toMatchObject({
        platform: "android",
        withoutGooglePlay: true,
      });
    }
    for (const agent of [PIXEL, REDUCED, IPHONE, DESKTOP]) {
      expect(deviceTraits(agent).withoutGooglePlay, agent).toBe(false);
    }
  });

  it("reads the model and the OS version of Chrome's reduced agent from its client hints", () => {
    const hints = {
      "sec-ch-ua-model": '"SM-S911B"',
      "sec-ch-ua-platform-version": '"14.0.0"',
    };
    expect(deviceTraits(REDUCED, hints)).toMatchObject({
      platform: "android",
      osVersion: "14",
      deviceModel: "SM-S911B",
      reducedAgent: true,
    });
    expect(
      deviceTraits(REDUCED, { ...hints, "sec-ch-ua-platform-version": '"12.1.0"' }).osVersion,
    ).toBe("12.1");
    // Empty or malformed hints say nothing; a full agent is read as it is, whatever the hints.
    expect(
      deviceTraits(REDUCED, { "sec-ch-ua-model": '""', "sec-ch-ua-platform-version": "14" }),
    ).toMatchObject({ osVersion: null, deviceModel: null });
    expect(deviceTraits(PIXEL, hints)).toMatchObject({ osVersion: "14", deviceModel: "Pixel 8" });
    expect(deviceTraits(IPHONE, hints)).toMatchObject({ osVersion: "17.4", deviceModel: "iPhone" });
    // Spaces inside a hint's quotes are no part of the model.
    expect(deviceTraits(REDUCED, { ...hints, "sec-ch-ua-model": '" Pixel 8 "' }).deviceModel).toBe(
      "Pixel 8",
    );
  });

  it.each([
    ['"14.0.0"', "14"],
    ['"10.0"', "10"],
    ['"14.0.1"', "14.0.1"], // only the trailing zeros go
    ['"14.10.0"', "14.10"],
    ['"0"', "0"],
    ['"abc"', null],
    ['"14.x"', null],
    ['"v14"', null],
    ['"14."', null],
    ['"14 beta"', null],
  ])("reads the platform version hint %s as %j", (hint, version) => {
    const hints = { "sec-ch-ua-model": '"Pixel 8"', "sec-ch-ua-platform-version": hint };
    expect(deviceTraits(REDUCED, hints).osVersion).toBe(version);
  });

  it("reads a hint as a structured-field string, or not at all", () => {
    expect(sfString('"Pixel 8"')).toBe("Pixel 8");
    expect(sfString(' "say \\"hi\\"" ')).toBe('say "hi"');
    expect(sfString("Pixel 8")).toBeNull();
    expect(sfString('"unclosed')).toBeNull();
    // A quote or a backslash inside is escaped, or the string is malformed.
    expect(sfString('"Pixel "8"')).toBeNull();
    expect(sfString('"C:\\\\dir"')).toBe("C:\\dir");
    expect(sfString('"a\\b"')).toBeNull();
    expect(sfString('"ünïcode"')).toBeNull();
    expect(sfString(`"${"x".repeat(101)}"`)).toBeNull();
    expect(sfString(`"${"x".repeat(100)}"`)).toBe("x".repeat(100));
    expect(sfString('"Pixel 8" junk')).toBeNull();
    expect(sfString('junk "Pixel 8"')).toBeNull();
    expect(sfString(undefined)).toBeNull();
    expect(sentDeviceHints({ "sec-ch-ua-model": '""', "sec-ch-ua-platform-version": '""' })).toBe(
      true,
    );
    expect(sentDeviceHints({ "sec-ch-ua-model": '"Pixel 8"' })).toBe(false);
    expect(sentDeviceHints({ "sec-ch-ua-platform-version": '"14.0.0"' })).toBe(false);
  });

  it.each([
    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "Twitterbot/1.0",
    "Mozilla/5.0 (compatible; Google-PageRenderer; Google (+https://developers.google.com/+/web/snippet/))",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "WhatsApp/2.23.20.0",
    "TelegramBot (like TwitterBot)",
    "",
    "   ",
    "\t",
  ])("knows %j for a bot or a link preview", (agent) => {
    expect(deviceTraits(agent).isBot).toBe(true);
  });

  it("treats a missing agent as a bot", () => {
    expect(deviceTraits(undefined).isBot).toBe(true);
  });

  it("reads an agent parsed before the same, and each tap's own hints with it", () => {
    const first = deviceTraits(PIXEL);
    for (let i = 0; i < 3; i++) expect(deviceTraits(PIXEL)).toEqual(first);
    const pixel = {
      "sec-ch-ua-model": '"Pixel 8"',
      "sec-ch-ua-platform-version": '"14.0.0"',
    };
    const galaxy = {
      "sec-ch-ua-model": '"SM-S911B"',
      "sec-ch-ua-platform-version": '"13.0.0"',
    };
    for (let i = 0; i < 3; i++) {
      expect(deviceTraits(REDUCED, pixel)).toMatchObject({
        deviceModel: "Pixel 8",
        osVersion: "14",
      });
      expect(deviceTraits(REDUCED, galaxy)).toMatchObject({
        deviceModel: "SM-S911B",
        osVersion: "13",
      });
      expect(deviceTraits(REDUCED)).toMatchObject({ deviceModel: null, osVersion: null });
    }
    // Past what is kept, an agent is parsed each time, to the same traits.
    for (let i = 0; i < 2_100; i++) deviceTraits(`${PIXEL} variant/${i}`);
    expect(deviceTraits(PIXEL)).toEqual(first);
    const long = `${PIXEL} ${"x".repeat(600)}`;
    expect(deviceTraits(long)).toEqual(deviceTraits(long));
  });
});
