/**
 * Every word of the link host's landing page, one table, a row per language. An app picks the
 * languages its pages speak (`apps config --languages de,en`); a page is in the one of them
 * the tapper's browser asks for most (`Accept-Language`), else in the app's first it did not
 * refuse, and in English for an app that chose none. `{app}` stands for the app's name.
 */
import Negotiator from "negotiator";

export interface LandingStrings {
  /** The store buttons' names. */
  readonly googlePlay: string;
  readonly appStore: string;
  /** A link's own destination for the platform, when it is not in that platform's store. */
  readonly forAndroid: string;
  readonly forIos: string;
  /** The link to the app's web site, where it has one. */
  readonly website: string;
  /** Above the buttons. */
  readonly getTheApp: string;
  /** The button that opens the installed app (Android), above the others. */
  readonly openApp: string;
  /** When no store has the app for the tapper's device. */
  readonly unavailable: string;
  /** Beside the QR code on a desktop. */
  readonly scanOnPhone: string;
  /** The QR code's text alternative. */
  readonly qrLabel: string;
  /** Before the link itself. */
  readonly link: string;
}

export const LANDING_STRINGS = {
  en: {
    googlePlay: "Get it on Google Play",
    appStore: "Download on the App Store",
    forAndroid: "Get it for Android",
    forIos: "Get it for iPhone and iPad",
    website: "Visit the website",
    getTheApp: "Get {app}",
    openApp: "Open {app}",
    unavailable: "{app} is not available for this device yet.",
    scanOnPhone: "Scan this code with your phone's camera to open the link there.",
    qrLabel: "QR code of this link",
    link: "Link",
  },
  de: {
    googlePlay: "Jetzt bei Google Play",
    appStore: "Laden im App Store",
    forAndroid: "Für Android herunterladen",
    forIos: "Für iPhone und iPad herunterladen",
    website: "Zur Website",
    getTheApp: "{app} herunterladen",
    openApp: "{app} öffnen",
    unavailable: "{app} ist für dieses Gerät noch nicht verfügbar.",
    scanOnPhone:
      "Scannen Sie diesen Code mit der Kamera Ihres Smartphones, um den Link dort zu öffnen.",
    qrLabel: "QR-Code dieses Links",
    link: "Link",
  },
  fr: {
    googlePlay: "Disponible sur Google Play",
    appStore: "Télécharger dans l'App Store",
    forAndroid: "Obtenir pour Android",
    forIos: "Obtenir pour iPhone et iPad",
    website: "Visiter le site web",
    getTheApp: "Obtenir {app}",
    openApp: "Ouvrir {app}",
    unavailable: "{app} n'est pas encore disponible pour cet appareil.",
    scanOnPhone: "Scannez ce code avec l'appareil photo de votre téléphone pour y ouvrir le lien.",
    qrLabel: "Code QR de ce lien",
    link: "Lien",
  },
  es: {
    googlePlay: "Disponible en Google Play",
    appStore: "Descargar en el App Store",
    forAndroid: "Obtener para Android",
    forIos: "Obtener para iPhone y iPad",
    website: "Visitar el sitio web",
    getTheApp: "Obtener {app}",
    openApp: "Abrir {app}",
    unavailable: "{app} aún no está disponible para este dispositivo.",
    scanOnPhone: "Escanea este código con la cámara de tu teléfono para abrir el enlace en él.",
    qrLabel: "Código QR de este enlace",
    link: "Enlace",
  },
  pt: {
    googlePlay: "Disponível no Google Play",
    appStore: "Baixar na App Store",
    forAndroid: "Obter para Android",
    forIos: "Obter para iPhone e iPad",
    website: "Visitar o site",
    getTheApp: "Obter {app}",
    openApp: "Abrir {app}",
    unavailable: "{app} ainda não está disponível para este dispositivo.",
    scanOnPhone: "Leia este código com a câmera do seu celular para abrir o link nele.",
    qrLabel: "Código QR deste link",
    link: "Link",
  },
  it: {
    googlePlay: "Disponibile su Google Play",
    appStore: "Scarica su App Store",
    forAndroid: "Scarica per Android",
    forIos: "Scarica per iPhone e iPad",
    website: "Visita il sito web",
    getTheApp: "Scarica {app}",
    openApp: "Apri {app}",
    unavailable: "{app} non è ancora disponibile per questo dispositivo.",
    scanOnPhone: "Inquadra questo codice con la fotocamera del telefono per aprire lì il link.",
    qrLabel: "Codice QR di questo link",
    link: "Link",
  },
  ja: {
    googlePlay: "Google Play で手に入れよう",
    appStore: "App Store からダウンロード",
    forAndroid: "Android 版を入手",
    forIos: "iPhone・iPad 版を入手",
    website: "ウェブサイトを見る",
    getTheApp: "{app} を入手",
    openApp: "{app} を開く",
    unavailable: "{app} はこのデバイスではまだご利用いただけません。",
    scanOnPhone:
      "スマートフォンのカメラでこのコードを読み取ると、リンクがスマートフォンで開きます。",
    qrLabel: "このリンクの QR コード",
    link: "リンク",
  },
} as const satisfies Record<string, LandingStrings>;

export type LandingLanguage = keyof typeof LANDING_STRINGS;

export const LANDING_LANGUAGES = Object.keys(LANDING_STRINGS) as readonly LandingLanguage[];

export const DEFAULT_LANDING_LANGUAGE: LandingLanguage = "en";

const isLanguage = (tag: string): tag is LandingLanguage => Object.hasOwn(LANDING_STRINGS, tag);

/** Anything the app offers that the browser did not name or refuse, least wanted. */
const ANY_OTHER = "*;q=0.001";

/**
 * The page's language: of the app's, the one `Accept-Language` asks for most (a region's tag
 * asks for its language; `q=0` refuses one), else the app's first the browser did not refuse,
 * else the app's first; English for an app that set none.
 */
export const landingLanguage = (
  appLanguages: readonly string[] | undefined,
  acceptLanguage: string | null | undefined,
): LandingLanguage => {
  const offered = (appLanguages ?? []).filter(isLanguage);
  const first = offered[0];
  if (first === undefined) return DEFAULT_LANDING_LANGUAGE;
  const header = acceptLanguage?.trim() ? `${acceptLanguage}, ${ANY_OTHER}` : ANY_OTHER;
  const [wanted] = new Negotiator({ headers: { "accept-language": header } }).languages([
    ...offered,
  ]);
  return wanted !== undefined && isLanguage(wanted) ? wanted : first;
};
