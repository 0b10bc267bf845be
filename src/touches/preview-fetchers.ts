/**
 * The crawlers that unfurl a shared link into a card (title, description, image) in a chat or
 * a feed. The link host answers them with the link's preview page (Open Graph and Twitter card
 * tags) rather than a redirect to a store, whose page would be unfurled instead, and never
 * counts their fetches as clicks. One row per fetcher, in the order they are tried: a few
 * agents name others too (iMessage's names Facebook's and X's, Telegram's names X's), so the
 * more specific comes first. Each row holds an agent it was seen with, which its test fetches.
 * Each pattern ignores case: a fetcher's agent changes its case between versions.
 *
 * Only the fetchers' own agents are listed, never an app's in-app browser (`FBAN/FBIOS`,
 * `LinkedInApp`, `[Pinterest/Android]`), where a person taps the link and must be counted.
 */

export interface PreviewFetcher {
  /** The app or site whose cards it makes. */
  readonly name: string;
  readonly pattern: RegExp;
  /** An agent it sends. */
  readonly example: string;
}

export const PREVIEW_FETCHERS = [
  {
    name: "iMessage",
    pattern: /\bfacebookexternalhit\/1\.1 Facebot Twitterbot\/1\.0\b/i,
    example:
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0",
  },
  {
    name: "Telegram",
    pattern: /\bTelegramBot\b/i,
    example: "TelegramBot (like TwitterBot)",
  },
  {
    name: "WhatsApp",
    pattern: /^WhatsApp\//i,
    example: "WhatsApp/2.23.20.0 A",
  },
  {
    name: "Slack",
    pattern: /\bSlack(?:bot|-ImgProxy)\b/i,
    example: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  },
  {
    name: "Discord",
    pattern: /\bDiscordbot\//i,
    example: "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
  },
  {
    // Names Facebook's fetcher too.
    name: "KakaoTalk",
    pattern: /\bkakaotalk-scrap\//i,
    example:
      "facebookexternalhit/1.1; kakaotalk-scrap/1.0; +https://devtalk.kakao.com/t/scrap/33984",
  },
  {
    name: "X",
    pattern: /\bTwitterbot\//i,
    example: "Twitterbot/1.0",
  },
  {
    name: "Facebook",
    pattern: /\bfacebookexternalhit\/|\bFacebot\b|\bfacebookcatalog\//i,
    example: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
  },
  {
    name: "LinkedIn",
    pattern: /\bLinkedInBot\//i,
    example:
      "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
  },
  {
    name: "Microsoft Teams",
    pattern: /\bMicrosoftPreview\//i,
    example:
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/108.0.0.0 Safari/537.36 Edg/108.0.1462.54 MicrosoftPreview/2.0 +https://aka.ms/MicrosoftPreview",
  },
  {
    // A native fetch (CFNetwork), not the in-app browser a person taps the link in.
    name: "Viber",
    pattern: /^Viber\/[\d.]+ CFNetwork\//i,
    example: "Viber/20.3.0.4 CFNetwork/1410.0.3 Darwin/22.6.0",
  },
  {
    name: "Microsoft Teams and Skype (earlier)",
    pattern: /\bSkypeUriPreview\b/i,
    example:
      "Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com",
  },
  {
    name: "Pinterest",
    pattern: /\bPinterestbot\/|^Pinterest\/0\./i,
    example: "Pinterest/0.2 (+https://www.pinterest.com/bot.html)",
  },
  {
    name: "Reddit",
    pattern: /\bredditbot\//i,
    example: "Mozilla/5.0 (compatible; redditbot/1.0; +http://www.reddit.com/feedback)",
  },
  {
    name: "Snapchat",
    pattern: /\bSnap URL Preview Service\b/i,
    example:
      "Mozilla/5.0 (compatible; Snap URL Preview Service; bot; snapchat; https://developers.snap.com/robots)",
  },
  {
    name: "Bluesky",
    pattern: /\bBluesky Cardyb\//i,
    example: "Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)",
  },
  {
    // Each server fetches the cards of the posts it shows.
    name: "Mastodon",
    pattern: /^Mastodon\/[\d.]+ \(http\.rb\//i,
    example: "Mastodon/4.2.0 (http.rb/5.1.1; +https://mastodon.social/) Bot",
  },
  {
    name: "VK",
    pattern: /\bvkShare\b/i,
    example: "Mozilla/5.0 (compatible; vkShare; +http://vk.com/dev/Share)",
  },
  {
    // Google Chat's and Docs' link chips, not Google's search crawler.
    name: "Google Chat and Docs",
    pattern:
      /\bGoogle-PageRenderer\b|\bGoogle \(\+https:\/\/developers\.google\.com\/\+\/web\/snippet\/\)/i,
    example: "Google-PageRenderer Google (+https://developers.google.com/+/web/snippet/)",
  },
  {
    // Its own fetch of a link written in a mail, not the browser a person opens it in.
    name: "Outlook",
    pattern: /^Microsoft Office\/[\d.]+ \([^)]*\bMicrosoft Outlook\b/i,
    example: "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.12026; Pro)",
  },
  {
    // The cards of Medium, Notion and the many sites that embed through it.
    name: "Embedly",
    pattern: /\bEmbedly\//i,
    example: "Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)",
  },
  {
    // Jira's and Confluence's cards, among others.
    name: "Iframely",
    pattern: /\bIframely\//i,
    example: "Iframely/1.3.1 (+https://iframely.com/docs/about) Atlassian",
  },
] as const satisfies readonly PreviewFetcher[];

/** The fetcher an agent is, or null for any other agent (a person's browser, another bot). */
export const previewFetcherOf = (userAgent: string | null | undefined): PreviewFetcher | null =>
  (userAgent && PREVIEW_FETCHERS.find((fetcher) => fetcher.pattern.test(userAgent))) || null;
