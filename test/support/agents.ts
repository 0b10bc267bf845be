/** The user agent of a phone tapping links in the tests: Chrome on a Pixel 8, model and all. */
export const PIXEL =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36";
