/** Where a caller is: the ISO 3166-1 alpha-2 country of a request, when it can be told. */
export interface CountryResolver {
  countryOf(request: {
    readonly sourceIp: string | null;
    readonly headers: Readonly<Record<string, string | undefined>>;
  }): string | null;
}
