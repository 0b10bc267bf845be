import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { Link } from "wouter-preact";
import {
  errorMessage,
  getSkadnetworkReport,
  type RevenueRange,
  type SkadnetworkReport,
} from "../api.ts";
import { ErrorText, TableScroll } from "../components/page.tsx";
import { formatCount, formatUsd, UNKNOWN } from "../format.ts";
import { appPath } from "../session.tsx";
import { uncountedPostbacks } from "../skadnetwork-uncounted.ts";
import { withEventWords } from "../words.ts";

type Value = SkadnetworkReport["values"][number];
type Campaign = SkadnetworkReport["campaigns"][number];

/** A value as Apple sent it: the fine value (first window), else the coarse one. */
export const valueText = (value: Pick<Value, "fine" | "coarse">): string =>
  value.fine !== null ? `${value.fine} (fine)` : `${value.coarse ?? "none"} (coarse)`;

/** A revenue range as the values state it: "$4.97–$24.97", "$10.97+" with no bound above. */
export const revenueText = (range: RevenueRange): string =>
  range.max === null
    ? `${formatUsd(range.min)}+`
    : range.max === range.min
      ? formatUsd(range.min)
      : `${formatUsd(range.min)}–${formatUsd(range.max)}`;

const share = (part: number, whole: number) =>
  whole === 0 ? "" : ` (${Math.round((part / whole) * 100)}%)`;

/**
 * What each tier of first-window values means, one line each (docs/skadnetwork.md#reports):
 * what Apple's crowd anonymity tier let through, and what the app had set (a coarse value only
 * once a rule is met).
 */
const TIERS: { key: keyof SkadnetworkReport["tiers"]; label: string; meaning: string }[] = [
  {
    key: "fine",
    label: "Fine value",
    meaning:
      "Apple found the crowd of like installs large enough to send the fine value (0–63), with two to four digits of the campaign id.",
  },
  {
    key: "coarse_only",
    label: "Coarse value only",
    meaning:
      "A smaller crowd, whose user met a rule: Apple sent only low, medium or high, and two digits of the campaign id.",
  },
  {
    key: "none",
    label: "No value",
    meaning:
      "The smallest crowd, or a smaller crowd's install whose user met no rule (the app sets a coarse value only once one is met): the postback carried no conversion value.",
  },
];

/**
 * What a two digits' row's later postbacks are read beside: the range's installs of every row
 * ending in them. Not their own installs, which came days to weeks before them.
 */
const suffixText = (row: Campaign): string => {
  const installs = row.suffix_installs ?? 0;
  return `beside ${formatCount(installs)} install${installs === 1 ? "" : "s"} ending in ${row.source_identifier} in the range`;
};

/** Why a row has no later windows' postbacks of its own, for its cell's tooltip. */
const noLaterPostbacks = (row: Campaign): string =>
  row.identifier_field === "campaign-id"
    ? "SKAdNetwork before 4.0 has one conversion window: no later postbacks."
    : `Apple sends the later windows' postbacks with two digits only: they are on the row of ${row.source_identifier.slice(-2)}.`;

/**
 * The overview's SKAdNetwork section for the overview's range: Apple's postbacks counted and
 * received, installs by media source and campaign, each window's values decoded with the
 * app's schema, and the crowd anonymity tiers. Only postbacks verified with Apple's production
 * key count, unless the owner includes the development ones (tests from Xcode or a device's
 * developer settings).
 */
export function SkadnetworkSection(props: {
  appId: string;
  from: string;
  to: string;
  /** The overview's filters are set: they do not narrow Apple's postbacks, which name no install. */
  filtered?: boolean;
}) {
  const { appId, from, to } = props;
  const [development, setDevelopment] = useState(false);
  const [report, setReport] = useState<SkadnetworkReport | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(0);

  useEffect(() => {
    const call = ++latest.current;
    setLoading(true);
    setError(null);
    getSkadnetworkReport(appId, from, to, { development }).then(
      (answer) => {
        if (call !== latest.current) return;
        setReport(answer);
        setLoading(false);
      },
      (caught: unknown) => {
        if (call !== latest.current) return;
        // The figures shown were of the range or choice before: none rather than those under
        // this one's words.
        setReport(null);
        setError(errorMessage(caught));
        setLoading(false);
      },
    );
  }, [appId, from, to, development]);

  const schemaPage = <Link href={appPath(appId, "skadnetwork")}>SKAdNetwork page</Link>;
  return (
    <section class="card skadnetwork" aria-labelledby="skadnetwork-heading" aria-busy={loading}>
      <div class="section-head">
        <h2 id="skadnetwork-heading">SKAdNetwork</h2>
        <label class="check">
          <input
            type="checkbox"
            name="include_development"
            checked={development}
            onChange={(event) => setDevelopment(event.currentTarget.checked)}
          />
          <span>Include development postbacks</span>
        </label>
      </div>
      <p class="hint">
        Apple's postbacks of this app's iOS installs received from {from} to {to} (UTC days: Apple
        dates a postback by when it came, in no app's zone).{" "}
        {development
          ? "Postbacks verified with Apple's production key or a development key count."
          : "Only postbacks verified with Apple's production key count."}
        {props.filtered
          ? " The filters above leave them as they are: a postback names no install, and so no campaign, country or platform of ours."
          : ""}
      </p>
      <div role="status" class="status">
        {loading ? "Loading…" : ""}
      </div>
      <ErrorText message={error} />
      {report ? (
        <>
          <SkadnetworkCounts postbacks={report.postbacks} revenue={report.revenue_usd} />
          {report.postbacks.counted === 0 ? (
            <p class="empty" data-testid="skadnetwork-none-counted">
              {uncountedPostbacks(report.postbacks, development) ?? (
                <>
                  No postbacks came in this range. Devices send them to the registrable domain the
                  app's Info.plist names (example.com of go.example.com), whose two
                  report-attribution paths must reach the link host; the service finds the app by
                  the App Store id in its settings; the conversion value schema is on the{" "}
                  {schemaPage}.
                </>
              )}
            </p>
          ) : (
            <>
              <SkadnetworkCampaigns
                campaigns={report.campaigns}
                revenue={report.revenue_usd !== null}
              />
              <SkadnetworkValues
                values={report.values}
                schemaPage={schemaPage}
                revenue={report.revenue_usd !== null}
              />
              <SkadnetworkTiers tiers={report.tiers} />
            </>
          )}
        </>
      ) : null}
    </section>
  );
}

function SkadnetworkCounts(props: {
  postbacks: SkadnetworkReport["postbacks"];
  revenue: RevenueRange | null;
}) {
  const { postbacks, revenue } = props;
  const cards: (readonly [label: string, testId: string, value: number])[] = [
    ["Counted", "skadnetwork-counted", postbacks.counted],
    ["Received", "skadnetwork-received", postbacks.received],
    ["Unverified", "skadnetwork-unverified", postbacks.unverified],
    ["Development", "skadnetwork-development", postbacks.development],
    // Only when some are: a second signed copy with other values, which Apple does not sign,
    // makes a counted postback's values no one's.
    ...(postbacks.disputed > 0
      ? [["Values disputed", "skadnetwork-disputed", postbacks.disputed] as const]
      : []),
  ];
  return (
    <div class="totals">
      {cards.map(([label, testId, value]) => (
        <section key={testId} class="card total" aria-label={`${label} postbacks`}>
          <h3>{label}</h3>
          <p class="total-value" data-testid={testId} data-value={value}>
            {formatCount(value)}
          </p>
        </section>
      ))}
      {revenue ? (
        <section
          class="card total"
          aria-label="Revenue the values state"
          title="Read from the schema's revenue ranges, every window's. A postback with no value adds nothing: Apple's privacy thresholds make the lower figure a floor."
        >
          <h3>Revenue stated (USD)</h3>
          <p
            class="total-value"
            data-testid="skadnetwork-revenue"
            data-min={revenue.min}
            data-max={revenue.max ?? ""}
          >
            {revenueText(revenue)}
          </p>
        </section>
      ) : null}
    </div>
  );
}

function SkadnetworkCampaigns(props: {
  campaigns: SkadnetworkReport["campaigns"];
  /** The schema reads revenue: each row's is shown. */
  revenue: boolean;
}) {
  return (
    <>
      <h3 id="skadnetwork-campaigns-heading">Installs by media source and campaign</h3>
      <TableScroll label="Installs by media source and campaign">
        <table aria-labelledby="skadnetwork-campaigns-heading">
          <thead>
            <tr>
              <th scope="col">Media source</th>
              <th scope="col">Campaign (source identifier)</th>
              <th scope="col" class="num">
                Installs
              </th>
              <th scope="col" class="num">
                Redownloads
              </th>
              <th scope="col" class="num">
                Re-engagements
              </th>
              <th
                scope="col"
                class="num"
                title="On a row of two digits only: Apple sends every later window's postback with two digits, so they are of every campaign ending in them, shown beside those campaigns' installs of the range (not the installs they came of, which came days to weeks before them)."
              >
                Later windows' postbacks
              </th>
              {props.revenue ? (
                <th
                  scope="col"
                  class="num"
                  title="The first window's revenue the row's installs and redownloads state, read from the schema's revenue ranges; the later windows' under their postbacks."
                >
                  Revenue stated (USD)
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {props.campaigns.map((row) => (
              <tr
                key={`${row.ad_network_id}\u0000${row.identifier_field}\u0000${row.source_identifier}`}
                data-media-source={row.media_source}
                data-campaign={row.source_identifier}
                data-identifier-field={row.identifier_field}
              >
                <td>
                  {row.media_source}
                  {row.media_source !== row.ad_network_id ? (
                    <div class="note mono">{row.ad_network_id}</div>
                  ) : null}
                </td>
                <td class="mono">
                  {row.source_identifier}
                  {row.identifier_field === "campaign-id" ? (
                    <div class="note">campaign-id, before 4.0</div>
                  ) : null}
                </td>
                <td class="num">{formatCount(row.installs)}</td>
                <td class="num">{formatCount(row.redownloads)}</td>
                <td class="num">{formatCount(row.reengagements)}</td>
                {row.later_postbacks === null ? (
                  <td class="num" title={noLaterPostbacks(row)}>
                    {UNKNOWN}
                  </td>
                ) : (
                  <td class="num">
                    {formatCount(row.later_postbacks)}
                    <div class="note">{suffixText(row)}</div>
                  </td>
                )}
                {props.revenue ? (
                  <td class="num" data-testid="campaign-revenue">
                    {row.revenue_usd ? revenueText(row.revenue_usd) : UNKNOWN}
                    {row.later_revenue_usd ? (
                      <div class="note">later windows: {revenueText(row.later_revenue_usd)}</div>
                    ) : null}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <p class="hint">
        Apple sends two, three or all four digits of a campaign's source identifier, the fewer the
        smaller the crowd of like installs: a row of two digits (39) holds the installs of every
        campaign ending in them that Apple cut short, 5239's among them. Apple sends the later
        windows' postbacks with two digits only: they are on the row of two digits (39), beside the
        installs and redownloads of every row ending in them (5239's too), and a row of three or
        four digits shows none (—). A campaign-id row is SKAdNetwork's before 4.0: another
        numbering, with one window. Re-engagements are counted only where the app asks Apple for
        their copies, with the Info.plist key{" "}
        <span class="mono break-anywhere">
          EligibleForAdAttributionKitReengagementPostbackCopies
        </span>
        .
      </p>
    </>
  );
}

function SkadnetworkValues(props: {
  values: SkadnetworkReport["values"];
  schemaPage: ComponentChildren;
  /** The schema reads revenue: each value's is shown. */
  revenue: boolean;
}) {
  return (
    <>
      <h3 id="skadnetwork-values-heading">Conversion values by window</h3>
      {props.values.length === 0 ? (
        <p class="empty">No counted postback carried a conversion value.</p>
      ) : (
        <TableScroll label="Conversion values by window">
          <table aria-labelledby="skadnetwork-values-heading">
            <thead>
              <tr>
                <th scope="col">Conversion</th>
                <th scope="col">Window</th>
                <th scope="col">Value</th>
                <th scope="col" class="num">
                  Postbacks
                </th>
                <th scope="col">Meaning</th>
                {props.revenue ? (
                  <th scope="col" class="num">
                    Revenue stated per postback
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {props.values.map((value) => (
                <tr
                  key={`${value.conversion}\u0000${value.window}\u0000${value.fine}\u0000${value.coarse}`}
                  data-conversion={value.conversion}
                  data-window={value.window + 1}
                  data-value={value.fine ?? value.coarse ?? ""}
                >
                  <td>{value.conversion === "install" ? "Install" : "Re-engagement"}</td>
                  <td>{value.window + 1}</td>
                  <td>{valueText(value)}</td>
                  <td class="num">{formatCount(value.postbacks)}</td>
                  <td class="wrap-words" data-testid="meaning">
                    <ValueMeaning value={value} />
                  </td>
                  {props.revenue ? (
                    <td class="num">
                      {value.revenue_usd ? revenueText(value.revenue_usd) : UNKNOWN}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <p class="hint">
        A value means the rules of the app's conversion value schema that give it (on the{" "}
        {props.schemaPage}), for the schema as it stands now.
      </p>
    </>
  );
}

/** A value in words: the schema's rules for an install's, what is known for the rest. */
function ValueMeaning(props: { value: Value }) {
  const { value } = props;
  if (value.conversion === "reengagement")
    return <span class="note">A re-engagement's value: the install's schema does not read it</span>;
  if (value.meaning.length > 0) return <>{value.meaning.map(withEventWords).join(" or ")}</>;
  // Every install is told 0 at its first launch, before any rule is met.
  if (value.fine === 0) return <span class="note">First launch: no rule met in the window</span>;
  return <span class="note">No rule of the schema gives this value</span>;
}

function SkadnetworkTiers(props: { tiers: SkadnetworkReport["tiers"] }) {
  const { tiers } = props;
  const installs = tiers.fine + tiers.coarse_only + tiers.none;
  return (
    <>
      <h3 id="skadnetwork-tiers-heading">
        What the first window's postbacks carried (4.0 and AdAttributionKit)
      </h3>
      <ul class="tiers" aria-labelledby="skadnetwork-tiers-heading">
        {TIERS.map((tier) => (
          <li key={tier.key} data-tier={tier.key}>
            <strong>
              {tier.label}:{" "}
              <span data-testid={`tier-${tier.key}`} data-value={tiers[tier.key]}>
                {formatCount(tiers[tier.key])}
              </span>
              {share(tiers[tier.key], installs)}
            </strong>{" "}
            {tier.meaning}
          </li>
        ))}
      </ul>
    </>
  );
}
