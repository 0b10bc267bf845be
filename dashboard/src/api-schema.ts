/* Generated from spec/openapi.json by `npm run openapi` (src/http/openapi-types.ts): do not edit. */

export type SkadnetworkConfig = {
  version: number;
  windows: {
    /**
     * @maxItems 64
     */
    rules: ConversionRule[];
  }[];
  usd_rates: {
    [k: string]: number;
  };
} | null;
export type DeviceTracking = {
  maid?: string | null;
  att_status?: "authorized" | "denied" | "restricted" | "not_determined" | null;
} | null;

export interface ApiSchemas {
  RemoteConfig: RemoteConfig;
  EncryptionOff: EncryptionOff;
  EncryptionOn: EncryptionOn;
  SkadnetworkConfig: SkadnetworkConfig;
  ConversionRule: ConversionRule;
  Error: Error;
  InstallAnswer: InstallAnswer;
  InstallRequest: InstallRequest;
  EventsAnswer: EventsAnswer;
  EventsRequest: EventsRequest;
  Event: Event;
  SessionsAnswer: SessionsAnswer;
  SessionsRequest: SessionsRequest;
  Session: Session;
  S2sEventsRequest: S2SEventsRequest;
  S2sEvent: S2SEvent;
  DeletionAnswer: DeletionAnswer;
  ConsentAnswer: ConsentAnswer;
  ConsentRequest: ConsentRequest;
  Consent: Consent;
  DeviceTracking: DeviceTracking;
  DeletionRequestBody: DeletionRequestBody;
  ExportPage: ExportPage;
  ExportRecord: ExportRecord;
  AttributionParams: AttributionParams;
  TouchesAnswer: TouchesAnswer;
  TouchesRequest: TouchesRequest;
  Link: Link;
  LinkRequest: LinkRequest;
  LinkPage: LinkPage;
  LinkUpdate: LinkUpdate;
  DashboardSession: DashboardSession;
  SignInChallenge: SignInChallenge;
  SignIn: SignIn;
  SignInCode: SignInCode;
  AppSummary: AppSummary;
  AppSettings: AppSettings;
  NewApp: NewApp;
  AppChange: AppChange;
  Key: Key;
  NewKey: NewKey;
  NewKeyRequest: NewKeyRequest;
  Person: Person;
  NewPerson: NewPerson;
  OverviewReport: OverviewReport;
  CohortReport: CohortReport;
  LinkClicksReport: LinkClicksReport;
  LatestEventsReport: LatestEventsReport;
  PartnerCatalog: PartnerCatalog;
  CatalogPartner: CatalogPartner;
  Postbacks: Postbacks;
  PartnerConfig: PartnerConfig;
  Webhook: Webhook;
  PostbackSettings: PostbackSettings;
  DeliveryCounts: DeliveryCounts;
  PartnerConfigRequest: PartnerConfigRequest;
  PostbackTestResult: PostbackTestResult;
  PostbackTestRequest: PostbackTestRequest;
  WebhookRequest: WebhookRequest;
  DeliveryLogPage: DeliveryLogPage;
  DeliveryAttempt: DeliveryAttempt;
  ConversionSchemaAnswer: ConversionSchemaAnswer;
  ConversionSchemaRequest: ConversionSchemaRequest;
  AdNetworks: AdNetworks;
  AdNetworksRequest: AdNetworksRequest;
  SkadnetworkReport: SkadnetworkReport;
  ApplePostbackPage: ApplePostbackPage;
  ApplePostback: ApplePostback;
  UnknownApplePostbacks: UnknownApplePostbacks;
  CostAnswer: CostAnswer;
  CostRequest: CostRequest;
  CostRow: CostRow;
  CostRows: CostRows;
  StoredCostRow: StoredCostRow;
  OpenApiDocument: OpenApiDocument;
}
export interface RemoteConfig {
  enabled: boolean;
  refresh_interval_seconds: number;
  session_interval_seconds: number;
  encryption: EncryptionOff | EncryptionOn;
  skadnetwork: SkadnetworkConfig;
}
export interface EncryptionOff {
  enabled: false;
}
export interface EncryptionOn {
  enabled: true;
  key_id: string;
  public_key: string;
  algorithm: string;
  envelope_version: string;
  clear_keys: string[];
}
export interface ConversionRule {
  event: string;
  min_count?: number;
  revenue_usd?: {
    min?: number;
    max?: number;
  };
  parameter?: {
    name: string;
    at_least: number;
  };
  fine?: number;
  coarse: "low" | "medium" | "high";
  lock?: boolean;
}
export interface Error {
  error: string;
  detail: string;
}
export interface InstallAnswer {
  service_id: string;
}
export interface InstallRequest {
  service_id: string;
  os: "android" | "ios";
  os_version?: string | null;
  device_model?: string | null;
  app_version?: string | null;
  sdk_platform: string;
  sdk_version: string;
  first_open_time: string;
  sent_at?: string | null;
  idfv?: string | null;
  maid?: string | null;
  install_referrer?: {
    referrer: string;
    click_timestamp?: number | null;
    install_begin_timestamp?: number | null;
    referrer_click_timestamp_server_seconds?: number | null;
    install_begin_timestamp_server_seconds?: number | null;
    install_version?: string | null;
  } | null;
  att_status?: "authorized" | "denied" | "restricted" | "not_determined" | null;
  platform_ads_token?: string | null;
  open_url?: string | null;
  customer_user_id?: string | null;
  anonymous?: boolean | null;
  consent?: {
    gdpr_applies?: boolean | null;
    ad_user_data?: boolean | null;
    ad_personalization?: boolean | null;
    tcf_string?: string | null;
  } | null;
  locale?: string | null;
  timezone?: string | null;
}
export interface EventsAnswer {
  accepted: number;
  ignored: {
    index: number;
    event_id: string | null;
    reason: "install_event" | "app_disabled" | "install_deleted" | "duplicate_event";
    detail: string;
  }[];
  rejected: {
    index: number;
    event_id: string | null;
    error: string;
    detail: string;
    retryable: boolean;
  }[];
  warnings: {
    index: number;
    event_id: string | null;
    detail: string;
  }[];
}
export interface EventsRequest {
  sent_at?: string | null;
  /**
   * @minItems 1
   * @maxItems 100
   */
  events: [Event, ...Event[]];
}
export interface Event {
  event_id: string;
  event_type:
    | "INSTALL"
    | "LOGIN"
    | "SIGN_UP"
    | "REGISTER"
    | "PURCHASE"
    | "ADD_TO_CART"
    | "ADD_TO_WISHLIST"
    | "INITIATE_CHECKOUT"
    | "START_TRIAL"
    | "SUBSCRIBE"
    | "LEVEL_START"
    | "LEVEL_COMPLETE"
    | "TUTORIAL_COMPLETE"
    | "SEARCH"
    | "VIEW_ITEM"
    | "VIEW_CONTENT"
    | "SHARE"
    | "CUSTOM";
  event_name?: string | null;
  parameters?: {
    [k: string]: unknown;
  } | null;
  event_time: string;
  service_id: string;
  customer_user_id?: string | null;
  anonymous?: boolean | null;
}
export interface SessionsAnswer {
  accepted: number;
  ignored: {
    index: number;
    session_id: string | null;
    reason: "install_event" | "app_disabled" | "install_deleted" | "duplicate_event";
    detail: string;
  }[];
  rejected: {
    index: number;
    session_id: string | null;
    error: string;
    detail: string;
    retryable: boolean;
  }[];
}
export interface SessionsRequest {
  sent_at?: string | null;
  /**
   * @minItems 1
   * @maxItems 100
   */
  sessions: [Session, ...Session[]];
}
export interface Session {
  session_id: string;
  service_id: string;
  started_at: string;
}
export interface S2SEventsRequest {
  sent_at?: string | null;
  /**
   * @minItems 1
   * @maxItems 100
   */
  events: [S2SEvent, ...S2SEvent[]];
}
export interface S2SEvent {
  event_id: string;
  event_type:
    | "INSTALL"
    | "LOGIN"
    | "SIGN_UP"
    | "REGISTER"
    | "PURCHASE"
    | "ADD_TO_CART"
    | "ADD_TO_WISHLIST"
    | "INITIATE_CHECKOUT"
    | "START_TRIAL"
    | "SUBSCRIBE"
    | "LEVEL_START"
    | "LEVEL_COMPLETE"
    | "TUTORIAL_COMPLETE"
    | "SEARCH"
    | "VIEW_ITEM"
    | "VIEW_CONTENT"
    | "SHARE"
    | "CUSTOM";
  event_name?: string | null;
  parameters?: {
    [k: string]: unknown;
  } | null;
  event_time: string;
  customer_user_id: string;
  service_id?: null;
}
export interface DeletionAnswer {
  request_id: string;
  service_id: string;
  status: "pending" | "in_progress" | "completed";
  requested_at: string;
  completed_at: string | null;
}
export interface ConsentAnswer {
  service_id: string;
  consent: {
    gdpr_applies: boolean | null;
    ad_user_data: boolean | null;
    ad_personalization: boolean | null;
    tcf_string: string | null;
    updated_at: string;
  } | null;
}
export interface ConsentRequest {
  sent_at?: string | null;
  consent: Consent;
  device?: DeviceTracking;
}
export interface Consent {
  gdpr_applies?: boolean | null;
  ad_user_data?: boolean | null;
  ad_personalization?: boolean | null;
  tcf_string?: string | null;
}
export interface DeletionRequestBody {
  service_id: string;
}
export interface ExportPage {
  data: ExportRecord[];
  total_count: number;
}
export interface ExportRecord {
  event_id: string | null;
  event_time: string | null;
  event_name: string | null;
  service_id: string | null;
  media_source: string | null;
  campaign_id: string | null;
  campaign_name: string | null;
  adset_id: string | null;
  adset_name: string | null;
  ad_id: string | null;
  ad_name: string | null;
  matching_type: string | null;
  click_to_first_open_hours: number | null;
  confidence_score: string | null;
  country: string | null;
  os: string | null;
  app_id: string | null;
  app_name: string | null;
  install_type: string | null;
  revenue: number | null;
  currency: string | null;
  idfv: string | null;
  maid: string | null;
  customer_user_id: string | null;
  revenue_usd: number | null;
}
export interface AttributionParams {
  [k: string]: string;
}
export interface TouchesAnswer {
  accepted: {
    index: number;
    click_id: string;
    duplicate: boolean;
  }[];
  rejected: {
    index: number;
    error: string;
    detail: string;
  }[];
}
export interface TouchesRequest {
  /**
   * @minItems 1
   * @maxItems 1000
   */
  touches: [
    {
      touch_type: "click" | "impression";
      touch_time: string;
      media_source: string;
      campaign_id?: string | null;
      campaign_name?: string | null;
      adset_id?: string | null;
      adset_name?: string | null;
      ad_id?: string | null;
      ad_name?: string | null;
      ip?: string | null;
      user_agent?: string | null;
      maid?: string | null;
      click_id?: string | null;
      deeplink_id?: string | null;
      params?: {
        [k: string]: string;
      } | null;
      cost_model?: "CPI" | "CPC" | "CPM" | null;
      cost_value?: number | null;
      cost_currency?: string | null;
    },
    ...{
      touch_type: "click" | "impression";
      touch_time: string;
      media_source: string;
      campaign_id?: string | null;
      campaign_name?: string | null;
      adset_id?: string | null;
      adset_name?: string | null;
      ad_id?: string | null;
      ad_name?: string | null;
      ip?: string | null;
      user_agent?: string | null;
      maid?: string | null;
      click_id?: string | null;
      deeplink_id?: string | null;
      params?: {
        [k: string]: string;
      } | null;
      cost_model?: "CPI" | "CPC" | "CPM" | null;
      cost_value?: number | null;
      cost_currency?: string | null;
    }[]
  ];
}
export interface Link {
  deeplink_id: string;
  url: string;
  media_source: string;
  campaign_id: string | null;
  campaign_name: string | null;
  adset_id: string | null;
  adset_name: string | null;
  ad_id: string | null;
  ad_name: string | null;
  deep_link_path: string | null;
  params: {
    [k: string]: string;
  };
  android_url: string | null;
  ios_url: string | null;
  web_url: string | null;
  disabled: boolean;
  landing_page: boolean;
  forward_params: boolean;
  preview_title: string | null;
  preview_description: string | null;
  preview_image_url: string | null;
  cost_model: "CPI" | "CPC" | "CPM" | null;
  cost_value: number | null;
  cost_currency: string | null;
  created_at: string;
}
export interface LinkRequest {
  media_source: string;
  campaign_id?: string | null;
  campaign_name?: string | null;
  adset_id?: string | null;
  adset_name?: string | null;
  ad_id?: string | null;
  ad_name?: string | null;
  deep_link_path?: string | null;
  params?: {
    [k: string]: string;
  } | null;
  android_url?: string | null;
  ios_url?: string | null;
  web_url?: string | null;
  landing_page?: boolean | null;
  forward_params?: boolean | null;
  preview_title?: string | null;
  preview_description?: string | null;
  preview_image_url?: string | null;
  cost_model?: "CPI" | "CPC" | "CPM" | null;
  cost_value?: number | null;
  cost_currency?: string | null;
}
export interface LinkPage {
  data: Link[];
  next_cursor: string | null;
}
export interface LinkUpdate {
  disabled?: boolean;
  android_url?: string | null;
  ios_url?: string | null;
  web_url?: string | null;
  landing_page?: boolean | null;
  forward_params?: boolean | null;
  preview_title?: string | null;
  preview_description?: string | null;
  preview_image_url?: string | null;
  cost_model?: "CPI" | "CPC" | "CPM" | null;
  cost_value?: number | null;
  cost_currency?: string | null;
}
export interface DashboardSession {
  user: {
    email: string;
    admin: boolean;
    viewer: boolean;
  };
  csrf_token: string;
}
export interface SignInChallenge {
  challenge: "totp" | "totp_setup";
  challenge_token: string;
  expires_at: string;
  secret?: string;
  otpauth_uri?: string;
}
export interface SignIn {
  email: string;
  password: string;
}
export interface SignInCode {
  challenge_token: string;
  code: string;
}
export interface AppSummary {
  app_id: string;
  name: string;
  platform: "android" | "ios";
  enabled: boolean;
  created_at: string;
  time_zone: string;
}
export interface AppSettings {
  app_id: string;
  name: string;
  platform: "android" | "ios";
  enabled: boolean;
  created_at: string;
  time_zone: string;
  encryption: {
    enabled: boolean;
    key_id: string | null;
  };
  attribution: {
    enabled: boolean;
    click_window_days: number;
    view_window_hours: number;
    probabilistic_window_hours: number;
    probabilistic: {
      android: boolean;
      ios: boolean;
    };
    confidence_floor: "low" | "medium";
    deep_link_confidence_floor: "low" | "medium" | "high";
  };
  links: {
    app_store_id: string | null;
    play_package: string | null;
    ios_bundle_id: string | null;
    web_url: string | null;
    hosts: string[];
    apple_team_id: string | null;
    android_sha256_fingerprints: string[];
    languages: string[];
    preview_title: string | null;
    preview_description: string | null;
    preview_image_url: string | null;
  };
}
export interface NewApp {
  app_id: string;
  name: string;
  platform: "android" | "ios";
}
export interface AppChange {
  name?: string;
  enabled?: boolean;
  time_zone?: string;
  encryption?: {
    enabled: boolean;
  };
  attribution?: {
    enabled?: boolean;
    click_window_days?: number;
    view_window_hours?: number;
    probabilistic_window_hours?: number;
    probabilistic?: {
      android?: boolean;
      ios?: boolean;
    };
    confidence_floor?: "low" | "medium";
    deep_link_confidence_floor?: "low" | "medium" | "high";
  };
  links?: {
    app_store_id?: string | null;
    play_package?: string | null;
    ios_bundle_id?: string | null;
    web_url?: string | null;
    hosts?: string[];
    apple_team_id?: string | null;
    android_sha256_fingerprints?: string[];
    languages?: string[];
    preview_title?: string | null;
    preview_description?: string | null;
    preview_image_url?: string | null;
  };
}
export interface Key {
  key_id: string;
  kind: "sdk" | "server";
  scopes: (
    | "ingest"
    | "config"
    | "attribution:read"
    | "export"
    | "s2s"
    | "deletions"
    | "links"
    | "reports"
    | "postbacks"
    | "costs"
    | "apps"
    | "users"
  )[];
  created_at: string;
  revoked_at: string | null;
}
export interface NewKey {
  key_id: string;
  kind: "sdk" | "server";
  scopes: (
    | "ingest"
    | "config"
    | "attribution:read"
    | "export"
    | "s2s"
    | "deletions"
    | "links"
    | "reports"
    | "postbacks"
    | "costs"
    | "apps"
    | "users"
  )[];
  created_at: string;
  revoked_at: string | null;
  key: string;
}
export interface NewKeyRequest {
  kind: "sdk" | "server";
}
export interface Person {
  email: string;
  role: "admin" | "member" | "viewer";
  app_ids: string[];
  created_at: string;
  totp: boolean;
}
export interface NewPerson {
  email: string;
  role?: "admin" | "member" | "viewer";
  /**
   * @maxItems 100
   */
  app_ids?: string[];
}
export interface OverviewReport {
  from: string;
  to: string;
  time_zone: string;
  totals: {
    installs: number;
    paid_installs: number;
    organic_installs: number;
    reinstalls: number;
    events: number;
    revenue_usd: number;
  };
  installs_by_day: {
    date: string;
    media_source: string | null;
    installs: number;
  }[];
  match_status: {
    status: string;
    installs: number;
  }[];
  match_method: {
    method: string;
    installs: number;
  }[];
  events_by_day: {
    date: string;
    event_name: string | null;
    events: number;
  }[];
  revenue_by_day: {
    date: string;
    revenue_usd: number;
  }[];
  campaigns: {
    media_source: string | null;
    campaign: string | null;
    installs: number;
    reinstalls: number;
    events: number;
    revenue_usd: number;
    revenue_per_install: number;
  }[];
  deep_link_paths: {
    deep_link_path: string;
    installs: number;
  }[];
  countries: {
    country: string | null;
    installs: number;
    events: number;
    revenue_usd: number;
  }[];
  revenue_events_unconverted: number;
  revenue_unconverted: {
    currency: string;
    events: number;
    amount: number;
  }[];
}
export interface CohortReport {
  from: string;
  to: string;
  time_zone: string;
  group_by: "campaign" | "adset" | "ad" | "country" | "platform";
  filters: {
    media_source?: string;
    campaign?: string;
    country?: string;
    platform?: string;
  };
  active_users: {
    range: number;
    average_daily: number | null;
    daily: {
      day: string;
      active: number;
    }[];
  };
  cost_rows_unconverted: number;
  touch_costs_unconverted: number;
  /**
   * @maxItems 20
   */
  cost_days_missing: {
    media_source: string | null;
    campaign: string | null;
    days: string[];
    paid_installs: number;
  }[];
  revenue_events_unconverted: number;
  revenue_unconverted: {
    currency: string;
    events: number;
    amount: number;
  }[];
  totals: {
    impressions: number;
    clicks: number;
    installs: number;
    conversion_rate: number | null;
    cost_usd: number | null;
    ecpi_usd: number | null;
    paid_installs: number;
    paid_installs_with_cost: number;
    revenue_usd: number;
    revenue_events_unconverted: number;
    arpu_usd: number | null;
    arpu: {
      d0: number | null;
      d7: number | null;
      d30: number | null;
    };
    paying_user_rate: {
      d0: number | null;
      d7: number | null;
      d30: number | null;
    };
    retention: {
      d1: number | null;
      d7: number | null;
      d30: number | null;
    };
    roas: {
      d0: number | null;
      d7: number | null;
      d30: number | null;
    };
  };
  groups: {
    media_source: string | null;
    group: string | null;
    impressions: number;
    clicks: number;
    installs: number;
    conversion_rate: number | null;
    cost_usd: number | null;
    ecpi_usd: number | null;
    paid_installs: number;
    paid_installs_with_cost: number;
    revenue_usd: number;
    revenue_events_unconverted: number;
    arpu_usd: number | null;
    arpu: {
      d0: number | null;
      d7: number | null;
      d30: number | null;
    };
    paying_user_rate: {
      d0: number | null;
      d7: number | null;
      d30: number | null;
    };
    retention: {
      d1: number | null;
      d7: number | null;
      d30: number | null;
    };
    roas: {
      d0: number | null;
      d7: number | null;
      d30: number | null;
    };
  }[];
  cohorts: {
    day: string;
    installs: number;
    retention: (number | null)[];
    revenue_per_user: (number | null)[];
  }[];
}
export interface LinkClicksReport {
  clicks: {
    deeplink_id: string;
    clicks: number;
  }[];
}
export interface LatestEventsReport {
  events: ExportRecord[];
}
export interface PartnerCatalog {
  data: CatalogPartner[];
  macros: {
    name: string;
    kind: "text" | "number";
    of: "install" | "event" | "any";
    description: string;
  }[];
}
export interface CatalogPartner {
  id: string;
  name: string;
  method: string;
  installs: "won" | "all";
  media_sources: string[];
  event_names: string[] | null;
  takes_installs: boolean;
  takes_events: boolean;
  values: {
    name: string;
    label: string;
    secret: boolean;
    kind: "text" | "url";
    description: string;
  }[];
  macros: string[];
  tcf_vendor_id: number | null;
  sources: string[];
  notes: string;
}
export interface Postbacks {
  partners: PartnerConfig[];
  webhooks: Webhook[];
  settings: PostbackSettings;
  counts: DeliveryCounts[];
}
export interface PartnerConfig {
  id: string;
  partner: string;
  template: {
    method: "GET" | "POST";
    install?: {
      url: string;
      headers?: {
        [k: string]: string;
      };
      body?: string | null;
    } | null;
    event?: {
      url: string;
      headers?: {
        [k: string]: string;
      };
      body?: string | null;
    } | null;
  } | null;
  media_sources: string[];
  values: {
    [k: string]: string;
  };
  sealed_values: string[];
  secret_values: string[];
  installs: "won" | "all";
  events: {
    [k: string]: {
      name: string;
      revenue: boolean;
    };
  };
  event_window_days: number;
  tcf_vendor_id: number | null;
  enabled: boolean;
  updated_at: string;
}
export interface Webhook {
  id: string;
  url: string;
  enabled: boolean;
  updated_at: string;
  secret?: string;
}
export interface PostbackSettings {
  share_device_data_without_consent: boolean;
}
export interface DeliveryCounts {
  day: string;
  config_id: string;
  partner: string;
  delivered: number;
  retry: number;
  failed: number;
  skipped: number;
}
export interface PartnerConfigRequest {
  partner: string;
  template?: {
    method: "GET" | "POST";
    install?: {
      url: string;
      headers?: {
        [k: string]: string;
      };
      body?: string | null;
    } | null;
    event?: {
      url: string;
      headers?: {
        [k: string]: string;
      };
      body?: string | null;
    } | null;
  } | null;
  media_sources?: string[];
  values?: {
    [k: string]: string;
  };
  secret_values?: string[];
  installs?: "won" | "all";
  events?: {
    [k: string]: {
      name: string;
      revenue?: boolean;
    };
  };
  event_window_days?: number;
  tcf_vendor_id?: number | null;
  enabled?: boolean;
}
export interface PostbackTestResult {
  request: {
    method: string;
    url: string;
    headers: {
      [k: string]: string;
    };
    body: string | null;
  };
  response: {
    status: number | null;
    body: string | null;
    error: string | null;
  };
  verdict: "delivered" | "retry" | "failed";
  warnings: string[];
}
export interface PostbackTestRequest {
  kind?: "install" | "event";
  platform?: "android" | "ios";
  event_name?: string;
}
export interface WebhookRequest {
  url: string;
  enabled?: boolean;
  rotate_secret?: boolean;
}
export interface DeliveryLogPage {
  data: DeliveryAttempt[];
  next_cursor: string | null;
}
export interface DeliveryAttempt {
  time: string;
  send_id: string;
  config_id: string;
  target: "partner" | "webhook";
  partner: string;
  kind: "install" | "event";
  service_id: string;
  event_id: string | null;
  method: string;
  url: string;
  status: number | null;
  answer: string | null;
  error: string | null;
  attempt: number;
  retry: boolean;
  verdict: "delivered" | "retry" | "failed" | "skipped";
  final: boolean;
  reason: string | null;
}
export interface ConversionSchemaAnswer {
  schema: {
    version: number;
    updated_at: string;
    windows: {
      rules: ConversionRule[];
    }[];
  } | null;
}
export interface ConversionSchemaRequest {
  windows: {
    /**
     * @maxItems 64
     */
    rules: ConversionRule[];
  }[];
}
export interface AdNetworks {
  networks: {
    ad_network_id: string;
    media_source: string;
    own: boolean;
  }[];
}
export interface AdNetworksRequest {
  networks: {
    [k: string]: string;
  };
}
export interface SkadnetworkReport {
  postbacks: {
    received: number;
    counted: number;
    unverified: number;
    development: number;
    disputed: number;
  };
  revenue_usd: {
    min: number;
    max: number | null;
  } | null;
  campaigns: {
    media_source: string;
    ad_network_id: string;
    source_identifier: string;
    identifier_field: "source-identifier" | "campaign-id";
    installs: number;
    redownloads: number;
    reengagements: number;
    later_postbacks: number | null;
    suffix_installs: number | null;
    revenue_usd: {
      min: number;
      max: number | null;
    } | null;
    later_revenue_usd: {
      min: number;
      max: number | null;
    } | null;
  }[];
  values: {
    conversion: "install" | "reengagement";
    window: number;
    fine: number | null;
    coarse: "low" | "medium" | "high" | null;
    postbacks: number;
    meaning: string[];
    revenue_usd: {
      min: number;
      max: number | null;
    } | null;
  }[];
  tiers: {
    fine: number;
    coarse_only: number;
    none: number;
  };
}
export interface ApplePostbackPage {
  data: ApplePostback[];
  next_cursor: string | null;
}
export interface ApplePostback {
  kind: "skadnetwork" | "adattributionkit";
  version: string;
  received_at: string;
  ad_network_id: string;
  media_source: string;
  source_identifier: string;
  app_store_id: string;
  transaction_id: string;
  redownload: boolean;
  source_app_id: string | null;
  source_domain: string | null;
  fidelity_type: number | null;
  did_win: boolean;
  postback_sequence_index: number;
  conversion_value: number | null;
  coarse_conversion_value: "low" | "medium" | "high" | null;
  country_code: string | null;
  conversion_type: string | null;
  verification: "verified" | "unverified";
  environment: "production" | "development" | null;
  values_disputed: boolean;
  counted: boolean;
}
export interface UnknownApplePostbacks {
  app_store_ids: {
    app_store_id: string;
    postbacks: number;
    verified: number;
    development: number;
    first_received_at: string;
    last_received_at: string;
    app_id: string | null;
  }[];
  truncated: boolean;
}
export interface CostAnswer {
  accepted: number;
  replaced: number;
  warnings: string[];
}
export interface CostRequest {
  /**
   * @minItems 1
   * @maxItems 1000
   */
  rows: [CostRow, ...CostRow[]];
}
export interface CostRow {
  day: string;
  media_source: string;
  campaign_id: string;
  campaign_name?: string | null;
  adset_id?: string | null;
  adset_name?: string | null;
  ad_id?: string | null;
  ad_name?: string | null;
  country?: string | null;
  amount: number;
  currency: string;
  impressions?: number | null;
  clicks?: number | null;
}
export interface CostRows {
  data: StoredCostRow[];
}
export interface StoredCostRow {
  day: string;
  media_source: string;
  campaign_id: string;
  campaign_name: string | null;
  adset_id: string | null;
  adset_name: string | null;
  ad_id: string | null;
  ad_name: string | null;
  country: string | null;
  amount: number;
  currency: string;
  amount_usd: number | null;
  impressions: number | null;
  clicks: number | null;
  received_at: string;
}
export interface OpenApiDocument {
  openapi: "3.1.0";
  info: {
    title: string;
    version: string;
    [k: string]: unknown;
  };
  paths: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
