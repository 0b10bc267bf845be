import { describe, expect, it } from "vitest";
import { PREVIEW_FETCHERS, previewFetcherOf } from "./preview-fetchers.ts";
import { deviceTraits } from "./user-agent.ts";

describe("the preview fetchers' table", () => {
  it.each(PREVIEW_FETCHERS.map((fetcher) => [fetcher.name, fetcher] as const))(
    "knows %s by the agent it sends",
    (name, fetcher) => {
      expect(previewFetcherOf(fetcher.example)?.name).toBe(name);
      // Whatever the case of its agent.
      expect(previewFetcherOf(fetcher.example.toLowerCase())?.name).toBe(name);
      expect(previewFetcherOf(fetcher.example.toUpperCase())?.name).toBe(name);
      // Never a person: never a click, whatever path the tap takes.
      expect(deviceTraits(fetcher.example).isBot).toBe(true);
    },
  );

  it("holds the crawlers of WhatsApp, iMessage, Slack, Discord, Telegram, X, Facebook and LinkedIn", () => {
    expect(PREVIEW_FETCHERS.map((fetcher) => fetcher.name)).toEqual(
      expect.arrayContaining([
        "WhatsApp",
        "iMessage",
        "Slack",
        "Discord",
        "Telegram",
        "X",
        "Facebook",
        "LinkedIn",
      ]),
    );
  });

  it.each([
    // People's browsers, in-app ones included: their taps are clicks.
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/21E236 [FBAN/FBIOS;FBAV/458.0.0.43.112;FBBV/570236483;FBDV/iPhone15,2]",
    "Mozilla/5.0 (Linux; Android 14; SM-S911B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36 [Pinterest/Android]",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.29.1",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
    // Another Office program's fetch of a link (Word's), which makes no card.
    "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Word 16.0.12026; Pro)",
    // Other bots: redirected and not counted, but no preview page.
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "",
  ])("takes %j for no preview fetcher", (agent) => {
    expect(previewFetcherOf(agent)).toBeNull();
  });

  it("takes the more specific of two fetchers an agent names", () => {
    // iMessage's agent names Facebook's and X's crawlers; Telegram's names X's.
    expect(
      previewFetcherOf(
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0",
      )?.name,
    ).toBe("iMessage");
    expect(previewFetcherOf("TelegramBot (like TwitterBot)")?.name).toBe("Telegram");
  });
});
