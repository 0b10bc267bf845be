/**
 * ISO 4217 currency codes accepted for revenue: list one (current currencies and funds,
 * precious metals included) as of 2025, plus codes withdrawn since 2023 that app stores and
 * older app builds may still send (ANG, CUC, HRK, SLL, ZWL). A code without an ECB rate (or a
 * peg to the dollar or the euro, src/fx/ecb-rates.ts) is still accepted: its revenue is kept, and
 * `revenue_usd` is null rather than invented. `XTS`
 * (testing) and `XXX` (no currency) are left out: revenue in them is not money.
 */
export const ISO_4217_CODES: ReadonlySet<string> = new Set(
  (
    "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD " +
    "BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP " +
    "DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS " +
    "INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD " +
    "MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR " +
    "PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS " +
    "SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW " +
    "UZS VED VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XUA " +
    "YER ZAR ZMW ZWG ZWL"
  ).split(" "),
);
