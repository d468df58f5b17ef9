// YOURLS's answer writers (includes/functions-api.php yourls_api_output), byte for byte where a
// client could tell: the status from `statusCode`, else `errorCode`, else 200; `format` json
// (PHP's json_encode: "\/" and "\uXXXX" escapes), jsonp (a callback of [A-Za-z0-9_$.] only, as
// YOURLS 1.10.3+ checks), xml (spatie/array-to-xml under <root>, as yourls_xml_encode) or simple
// (the answer's `simple` text); any other format is simple, as in YOURLS. Pure: no I/O.

/** A YOURLS answer: ordered fields (YOURLS's clients read them by name, people by order), `simple` for format=simple. */
export interface YourlsAnswer {
  readonly [name: string]: AnswerValue | undefined;
}
type AnswerValue = string | number | YourlsAnswer;

export interface Written {
  readonly status: number;
  readonly type: string;
  readonly body: string;
}

const JSONP_CALLBACK = /^[a-zA-Z0-9_$.]+$/;
/** A JavaScript unicode escape smuggled into a callback name (YOURLS refuses those first). */
const UNICODE_ESCAPE = /\\?u[0-9a-fA-F]{4}/;

/** The answer as YOURLS writes it in `format`, with its status and content type. */
export function writeAnswer(format: string, answer: YourlsAnswer): Written {
  const { simple, ...output } = answer;
  const status = statusOf(output);
  switch (format) {
    case 'jsonp': {
      const callback = output.callback;
      if (typeof callback === 'string' && (UNICODE_ESCAPE.test(callback) || !JSONP_CALLBACK.test(callback))) {
        return { status: 400, type: 'application/javascript', body: phpJson({ errorCode: '400', error: 'Invalid callback parameter' }) };
      }
      return { status, type: 'application/javascript', body: `${typeof callback === 'string' ? callback : ''}(${phpJson(output)})` };
    }
    case 'json':
      return { status, type: 'application/json', body: phpJson(output) };
    case 'xml':
      return { status, type: 'application/xml', body: `<?xml version="1.0" encoding="UTF-8"?>\n${element('root', output)}\n` };
    default:
      return { status, type: 'text/plain', body: typeof simple === 'string' ? simple : '' };
  }
}

function statusOf(output: YourlsAnswer): number {
  const code = output.statusCode ?? output.errorCode;
  const status = typeof code === 'string' && code !== '' ? Number(code) : 200;
  return Number.isInteger(status) && status >= 200 && status <= 599 ? status : 200;
}

/** json_encode's default escaping: "/" as "\/", and every character past ASCII as \uXXXX (UTF-16 units). */
function phpJson(value: unknown): string {
  return JSON.stringify(value).replace(/[/\u0080-\uffff]/g, (char) =>
    char === '/' ? '\\/' : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** spatie/array-to-xml: one element per field, nested for objects; an empty value is an empty element. */
function element(name: string, value: AnswerValue | undefined): string {
  const tag = name.replaceAll(' ', '_');
  if (value === undefined) return `<${tag}/>`;
  if (typeof value === 'object') {
    const children = Object.entries(value)
      .filter(([, child]) => child !== undefined)
      .map(([childName, child]) => element(childName, child))
      .join('');
    return children === '' ? `<${tag}/>` : `<${tag}>${children}</${tag}>`;
  }
  // As the library does: control characters other than CR and LF are dropped (XML 1.0 cannot carry most of them).
  // eslint-disable-next-line no-control-regex
  const text = String(value).replace(/[\x00-\x09\x0B\x0C\x0E-\x1F\x7F]/g, '');
  return text === '' ? `<${tag}/>` : `<${tag}>${escapeXml(text)}</${tag}>`;
}

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('\r', '&#13;');
}
