// Client addresses for clicks from a known country: the shipped geography database
// (@ip-location-db/geo-whois-asn-country-mmdb) places each in the country it is named after.

export const COUNTRY_IP = { us: '8.8.8.8', gb: '81.2.69.142', jp: '210.130.0.1', nl: '193.0.6.139' } as const;
