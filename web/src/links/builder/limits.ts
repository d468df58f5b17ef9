// The limits of a link's fields as the server checks them, tied to the server's constants by type
// (a changed limit there fails the typecheck here): the browser checks them before sending.
import type { TAG_MAX_LENGTH, TAGS_MAX, TITLE_MAX_LENGTH } from '../../../../src/core/link.ts';
import type {
  CLICK_LIMIT_MAX as SERVER_CLICK_LIMIT_MAX,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  PREVIEW_DESCRIPTION_MAX_LENGTH,
  PREVIEW_TITLE_MAX_LENGTH,
} from '../../../../src/core/link-options.ts';
import type { URL_MAX_LENGTH } from '../../../../src/core/url-rules.ts';

export const URL_MAX = 2048 satisfies typeof URL_MAX_LENGTH;
/** core/codes.ts CODE_SHAPE: 3 to 64 of these. */
export const ALIAS_SHAPE = /^[A-Za-z0-9_-]{3,64}$/;
export const ALIAS_MIN = 3;
export const ALIAS_MAX = 64;
export const TITLE_MAX = 200 satisfies typeof TITLE_MAX_LENGTH;
export const TAGS_COUNT_MAX = 10 satisfies typeof TAGS_MAX;
export const TAG_MAX = 40 satisfies typeof TAG_MAX_LENGTH;
export const CLICK_LIMIT_MAX = 1_000_000_000 satisfies typeof SERVER_CLICK_LIMIT_MAX;
export const PASSWORD_MIN = 8 satisfies typeof PASSWORD_MIN_LENGTH;
export const PASSWORD_MAX = 128 satisfies typeof PASSWORD_MAX_LENGTH;
export const PREVIEW_TITLE_MAX = 200 satisfies typeof PREVIEW_TITLE_MAX_LENGTH;
export const PREVIEW_DESCRIPTION_MAX = 500 satisfies typeof PREVIEW_DESCRIPTION_MAX_LENGTH;
