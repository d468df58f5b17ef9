// The vocabulary of the list scenario's links (load/list-seed.ts), most used first: every list is
// drawn from with a Zipf-like skew, so that searches and filters meet common and rare values alike.
// Lowercase ASCII letters and hyphens only: each word fits a URL path as it is.

/** Words of titles, URL slugs and campaigns: 300, most used first. */
export const WORDS = `
  sale new spring summer guide free offer report launch update winter team product event webinar
  pricing blog news deal week best tips review demo story release holiday black friday cyber
  monday weekend early access beta invite partner customer case study video podcast episode
  series ebook checklist template toolkit playbook workshop summit conference keynote session
  recap highlights survey results annual quarterly monthly weekly daily digest newsletter
  roundup trends insights analysis benchmark index outlook forecast plan strategy growth
  marketing sales support success onboarding training course lesson tutorial docs api
  developer cloud mobile desktop app store download install setup upgrade migration security
  privacy compliance policy terms careers hiring jobs culture values mission about contact
  press media kit brand logo design style colors fonts icons photos gallery portfolio showcase
  collection catalog shop cart checkout order shipping returns refund gift card voucher coupon
  code promo discount bundle pack starter pro premium enterprise business personal family
  student teacher school campus library museum garden kitchen recipe dinner lunch breakfast
  coffee tea wine cheese bread pasta pizza salad soup dessert chocolate vanilla lemon mango
  berry apple orange cherry peach plum olive pepper ginger honey maple cedar pine oak willow
  river lake ocean island harbor coast valley canyon desert forest meadow prairie glacier
  alpine arctic tropical coral amber ivory silver golden crimson violet indigo teal scarlet
  velvet linen cotton denim leather wool silk marble granite copper bronze iron steel glass
  crystal lantern compass anchor beacon lighthouse voyage journey expedition odyssey
  saga legend myth fable riddle puzzle cipher quartz nebula comet meteor orbit eclipse solstice
  equinox aurora zenith horizon twilight midnight dawn dusk ember spark flame blaze thunder
  storm breeze drizzle frost blizzard monsoon tundra savanna lagoon fjord atoll archipelago
  marmalade saffron cardamom nutmeg tamarind quince kumquat persimmon rhubarb juniper wisteria
  gardenia magnolia hyacinth camellia peony begonia zinnia dahlia fennel`
  .trim()
  .split(/\s+/);

/** Tags: 50, most used first. */
export const TAGS = `
  marketing social email q3-campaign product-launch newsletter partners internal sales events
  blog support docs press hiring paid-search affiliates retargeting webinar onboarding
  black-friday holiday emea apac north-america latam print qr-code podcast video influencers
  community beta-program enterprise smb education nonprofit retail travel fintech healthcare
  gaming legacy-import test archived spring-promo do-not-use experiment-b experiment-c sunset-2023`
  .trim()
  .split(/\s+/);

/** Hosts of the targets: 20, most used first. */
export const DOMAINS = `
  www.example.com shop.example.com blog.example.com docs.example.org app.example.net
  news.example.co.uk events.example.io careers.example.com store.example.de help.example.fr
  media.example.com partners.example.org learn.example.net status.example.io go.example.app
  promo.example.shop static.example.cdn api.example.dev community.example.org labs.example.ai`
  .trim()
  .split(/\s+/);

/** First segments of the targets' paths: 30, most used first. */
export const SECTIONS = `
  products blog articles campaigns landing events news docs guides pricing offers collections
  resources stories downloads webinars careers press support help learn solutions customers
  partners community releases updates features compare about`
  .trim()
  .split(/\s+/);

/** utm_source values: 10, most used first. */
export const SOURCES = `newsletter twitter linkedin facebook instagram sms qr partner podcast print`.split(/\s+/);

/** Searches that match nothing: none of their trigrams is in any title, URL or code. */
export const NO_MATCH = ['zqxjv', 'qwzzyx', 'jjqqkz'];
