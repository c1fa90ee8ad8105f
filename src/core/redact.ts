/**
 * Redaction of secrets in text that is shown or stored (alerts, run logs).
 * The secret is replaced by `[REDACTED]` and its label is kept (`password=[REDACTED]`,
 * `Authorization: Bearer [REDACTED]`, `https://user:[REDACTED]@host`), so the text still says what was
 * there. Patterns err towards redacting: a false positive costs a word, a miss leaks a key.
 */

export const REDACTED = '[REDACTED]';

/** `need`: a cheap test (a substring, or a simple pattern) that any match requires; most texts fail it and skip the rule's costly scan. */
type Rule = { re: RegExp; to: string | ((...groups: string[]) => string); need?: RegExp | string };

const SECRET_KEY = String.raw`[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|session[_-]?id|cookie)`;

/** Any word SECRET_KEY (or `pwd`) can end with, case-insensitive. */
const SECRET_WORD = /password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|session[_-]?id|cookie|pwd/i;

const RULES: Rule[] = [
  // PEM private keys, also a block cut off by the end of the text.
  {
    re: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g,
    to: (_m, kind) => `-----BEGIN ${kind}PRIVATE KEY-----\n${REDACTED}\n-----END ${kind}PRIVATE KEY-----`,
    need: /-----BEGIN /,
  },
  // Credentials in URLs: scheme://user:password@host keeps the user.
  { re: /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:/@'"]+):([^\s@/'"]+)@/gi, to: `$1$2:${REDACTED}@`, need: /:\/\/[^\s@]*@/ },
  // Authorization headers, whatever the scheme.
  {
    re: /\b((?:proxy-)?authorization)(["']?[ \t]*[:=][ \t]*["']?)(?:(bearer|basic|token|digest|negotiate|bot)\s+)?([^\s'",;]+)/gi,
    to: (_m, name, sep, scheme) => `${name}${sep}${scheme ? `${scheme} ` : ''}${REDACTED}`,
    need: /authorization/i,
  },
  { re: /\b(bearer)[ \t]+([A-Za-z0-9._~+/-]{8,}=*)/gi, to: `$1 ${REDACTED}`, need: /bearer/i },
  // key=value and "key": "value" pairs whose key names a secret.
  {
    re: new RegExp(String.raw`(["']?)\b(${SECRET_KEY}|pwd)\1([ \t]*=[ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s&'",;]+)`, 'gi'),
    to: (_m, q, key, sep, value) => `${q}${key}${q}${sep}${quoteLike(value, REDACTED)}`,
    need: SECRET_WORD,
  },
  {
    re: new RegExp(String.raw`(["']?)\b(${SECRET_KEY})\1([ \t]*:[ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s&'",;]+)`, 'gi'),
    to: (_m, q, key, sep, value) => `${q}${key}${q}${sep}${quoteLike(value, REDACTED)}`,
    need: SECRET_WORD,
  },
  // curl/wget credentials: -u user:password, --user=user:password, --proxy-user user:password (the user is kept; a uid:gid such as docker's `-u 1000:1000` is not a password).
  {
    re: /((?:^|\s)(?:-u|--user|--proxy-user|-U)(?:[ \t]+|=))(?:(['"])([^\s:'"]+):[^'"\n]*\2|(?!\d+:\d+(?:\s|$))([^\s:'"]+):\S+)/g,
    to: (_m, flag, q, quotedUser, user) => (q ? `${flag}${q}${quotedUser}:${REDACTED}${q}` : `${flag}${user}:${REDACTED}`),
    need: /(?:-u|--user|--proxy-user|-U)[ \t=]/,
  },
  // --password xyz, --api-key=xyz, --token xyz
  { re: /(--(?:[a-z0-9]+-)*(?:password|passwd|passphrase|token|secret|api-?key|access-key))([ \t]+|=)(?!-)(\S+)/gi, to: `$1$2${REDACTED}`, need: /--/ },
  // Token shapes recognised anywhere.
  { re: /\bsk-(?:proj-|ant-(?:api\d\d-)?|live-|test-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}/g, to: REDACTED, need: 'sk-' },
  { re: /\b[sr]k_(?:live|test)_[A-Za-z0-9]{10,}/g, to: REDACTED, need: 'k_' },
  { re: /\bgh[pousr]_[A-Za-z0-9]{30,}/g, to: REDACTED, need: 'gh' },
  { re: /\bgithub_pat_[A-Za-z0-9_]{20,}/g, to: REDACTED, need: 'github_pat_' },
  { re: /\bglpat-[A-Za-z0-9_-]{20,}/g, to: REDACTED, need: 'glpat-' },
  { re: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, to: REDACTED, need: /AKIA|ASIA/ },
  { re: /\bxox[bpars]-[A-Za-z0-9-]{10,}/g, to: REDACTED, need: 'xox' },
  { re: /\bAIza[0-9A-Za-z_-]{35}/g, to: REDACTED, need: 'AIza' },
  { re: /\bnpm_[A-Za-z0-9]{36}\b/g, to: REDACTED, need: 'npm_' },
  { re: /\bhf_[A-Za-z0-9]{30,}/g, to: REDACTED, need: 'hf_' },
  { re: /(hooks\.slack\.com\/services\/)[A-Za-z0-9/]+/g, to: `$1${REDACTED}`, need: 'hooks.slack.com/services/' },
  // JWTs: three base64url segments, the first a JSON header.
  { re: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g, to: REDACTED, need: 'eyJ' },
];

function quoteLike(value: string, replacement: string): string {
  const q = value[0];
  return (q === '"' || q === "'") && value.length >= 2 && value.endsWith(q) ? `${q}${replacement}${q}` : replacement;
}

export function redact(text: string): string {
  let out = text;
  for (const rule of RULES) {
    if (rule.need !== undefined && !(typeof rule.need === 'string' ? out.includes(rule.need) : rule.need.test(out))) continue;
    rule.re.lastIndex = 0;
    out = typeof rule.to === 'string' ? out.replace(rule.re, rule.to) : out.replace(rule.re, rule.to as (...args: string[]) => string);
  }
  return out;
}
