/**
 * The reports' filters, as the Overview and Cohorts pages take them: a select each for media
 * source, campaign, country and platform, offered what the page's unfiltered report names (the
 * campaigns of the media source chosen), the value chosen kept even when the report lacks it,
 * and *Clear filters*. A page may add its own fields after them (the Cohorts page's grouping).
 */
import type { ComponentChildren } from "preact";
import type { ReportFilters } from "../api.ts";
import { type FilterName, hasFilters, PLATFORMS } from "../report-query.ts";
import { platformWord } from "../words.ts";

/** The filters' choices: what the range's unfiltered report names. */
export interface FilterOptions {
  readonly mediaSources: string[];
  /** Each campaign with the media sources that name it. */
  readonly campaigns: { value: string; mediaSources: Set<string | null> }[];
  readonly countries: string[];
}

export const NO_OPTIONS: FilterOptions = { mediaSources: [], campaigns: [], countries: [] };

const sortedValues = (values: Iterable<string | null>): string[] =>
  [...new Set(values)].filter((value): value is string => value !== null).sort();

/**
 * The choices of a report's media sources and campaigns (a pair each, either may be none: an
 * install credited to no source, an organic one's campaign) and of its countries.
 */
export const filterOptions = (
  pairs: Iterable<{ mediaSource: string | null; campaign: string | null }>,
  countries: Iterable<string | null>,
): FilterOptions => {
  const sources: (string | null)[] = [];
  const campaigns = new Map<string, Set<string | null>>();
  for (const { mediaSource, campaign } of pairs) {
    sources.push(mediaSource);
    if (campaign === null) continue;
    const named = campaigns.get(campaign) ?? new Set<string | null>();
    named.add(mediaSource);
    campaigns.set(campaign, named);
  }
  return {
    mediaSources: sortedValues(sources),
    campaigns: [...campaigns.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([value, mediaSources]) => ({ value, mediaSources })),
    countries: sortedValues(countries),
  };
};

const countryNames = (() => {
  try {
    return new Intl.DisplayNames(["en"], { type: "region" });
  } catch {
    return null;
  }
})();

/** "DE (Germany)"; the code alone where the browser knows no name. */
export const countryLabel = (code: string): string => {
  try {
    const name = countryNames?.of(code);
    return name && name !== code ? `${code} (${name})` : code;
  } catch {
    return code;
  }
};

/** The filters' card: the four selects, the page's own fields after them, and a hint below. */
export function FiltersForm(props: {
  /** Ids of the selects: `<prefix>-media_source`, … */
  idPrefix: string;
  legend: string;
  filters: ReportFilters;
  options: FilterOptions;
  onChange: (filters: ReportFilters) => void;
  hint: ComponentChildren;
  children?: ComponentChildren;
}) {
  const { filters, options, onChange, idPrefix } = props;
  /** The values a select offers: the report's, and the one chosen should the report lack it. */
  const withChosen = (values: string[], chosen: string | undefined) =>
    chosen === undefined || values.includes(chosen) ? values : [chosen, ...values];
  const campaignsOf = (mediaSource: string | undefined) =>
    options.campaigns
      .filter((campaign) => mediaSource === undefined || campaign.mediaSources.has(mediaSource))
      .map((campaign) => campaign.value);
  const filter = (name: FilterName, value: string) => {
    const next: ReportFilters = { ...filters };
    if (value === "") delete next[name];
    else next[name] = value;
    // A campaign the new media source does not have is no longer a choice.
    if (
      name === "media_source" &&
      next.campaign !== undefined &&
      options.campaigns.length > 0 &&
      !campaignsOf(next.media_source).includes(next.campaign)
    )
      delete next.campaign;
    onChange(next);
  };
  const select = (
    name: FilterName,
    label: string,
    all: string,
    values: string[],
    word: (value: string) => string = (value) => value,
  ) => (
    <div class="field">
      <label for={`${idPrefix}-${name}`}>{label}</label>
      <select
        id={`${idPrefix}-${name}`}
        name={name}
        value={filters[name] ?? ""}
        onChange={(event) => filter(name, event.currentTarget.value)}
      >
        <option value="">{all}</option>
        {withChosen(values, filters[name]).map((value) => (
          <option key={value} value={value}>
            {word(value)}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <form class="card filters" onSubmit={(event) => event.preventDefault()}>
      <fieldset>
        <legend>{props.legend}</legend>
        <div class="filter-row">
          {select("media_source", "Media source", "All media sources", options.mediaSources)}
          {select("campaign", "Campaign", "All campaigns", campaignsOf(filters.media_source))}
          {select("country", "Country", "All countries", options.countries, countryLabel)}
          {select("platform", "Platform", "All platforms", [...PLATFORMS], platformWord)}
          {props.children}
          {hasFilters(filters) ? (
            <div class="filter-end">
              <button
                type="button"
                class="secondary"
                onClick={() => {
                  onChange({});
                  // The button goes with the filters: focus to the first of them, not the page.
                  document.getElementById(`${idPrefix}-media_source`)?.focus();
                }}
              >
                Clear filters
              </button>
            </div>
          ) : null}
        </div>
        <p class="hint">{props.hint}</p>
      </fieldset>
    </form>
  );
}
