/**
 * Redaction of secrets in alerts and run logs: each kind of secret is replaced by [REDACTED] with its
 * label kept, and ordinary text passes through unchanged.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redact } from '../../src/core/redact';

const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

const CASES: [string, string, string][] = [
  ['Authorization header (curl -H)', `curl -H "Authorization: Bearer abc.DEF-123_xyz" https://api.example.com`, `curl -H "Authorization: Bearer [REDACTED]" https://api.example.com`],
  ['Authorization header, Basic', 'authorization: Basic dXNlcjpwYXNz', 'authorization: Basic [REDACTED]'],
  ['Authorization header, bare token', 'Authorization: 0123456789abcdef', 'Authorization: [REDACTED]'],
  ['Proxy-Authorization', 'Proxy-Authorization: Bearer tok_12345678', 'Proxy-Authorization: Bearer [REDACTED]'],
  ['Bearer token in prose', 'sent Bearer ya29.a0AfH6SMBx-long-token and got 401', 'sent Bearer [REDACTED] and got 401'],
  ['OpenAI key', 'OPENAI_API_KEY is sk-abcdefghijklmnopqrstuvwxyz012345', 'OPENAI_API_KEY is [REDACTED]'],
  ['OpenAI project key', 'key: sk-proj-AbCdEf0123456789_AbCdEf0123456789-xyz', 'key: [REDACTED]'],
  ['Anthropic key', 'using sk-ant-api03-AbCdEf0123456789AbCdEf0123456789', 'using [REDACTED]'],
  ['password= pair', 'mysql --host db password=hunter2 --port 3306', 'mysql --host db password=[REDACTED] --port 3306'],
  ['env-style password', 'export DB_PASSWORD=s3cr3t!', 'export DB_PASSWORD=[REDACTED]'],
  ['passwd and pwd', 'passwd=abc pwd=def', 'passwd=[REDACTED] pwd=[REDACTED]'],
  ['token in a query string', 'GET /hook?token=abc123&page=2', 'GET /hook?token=[REDACTED]&page=2'],
  ['secret and api_key', 'client_secret=xyz api_key=123 apikey=456', 'client_secret=[REDACTED] api_key=[REDACTED] apikey=[REDACTED]'],
  ['JSON pair', '{"password": "hunter2", "user": "bob"}', '{"password": "[REDACTED]", "user": "bob"}'],
  ['YAML pair', 'api_key: 1234abcd', 'api_key: [REDACTED]'],
  ['quoted value with spaces', `password='correct horse battery'`, `password='[REDACTED]'`],
  ['--password flag', 'tool login --password hunter2 --user bob', 'tool login --password [REDACTED] --user bob'],
  ['curl -u user:password', "curl -s -u bob:hunter2secret https://api.example.com", 'curl -s -u bob:[REDACTED] https://api.example.com'],
  ['curl --user=, quoted', `curl --user='bob:p@ss w' x; wget --proxy-user "al:pw1" y`, `curl --user='bob:[REDACTED]' x; wget --proxy-user "al:[REDACTED]" y`],
  ['--api-key= flag', 'cli --api-key=abcd1234 run', 'cli --api-key=[REDACTED] run'],
  ['GitHub classic token', 'ghp_0123456789abcdefghijABCDEFGHIJ012345 leaked', '[REDACTED] leaked'],
  ['GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', '[REDACTED]'],
  ['AWS access key id', 'aws key AKIAIOSFODNN7EXAMPLE found', 'aws key [REDACTED] found'],
  ['AWS secret in config', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws_secret_access_key = [REDACTED]'],
  ['URL with user:pass', 'cloning https://bob:hunter2@github.com/x/y.git', 'cloning https://bob:[REDACTED]@github.com/x/y.git'],
  ['database URL', 'DATABASE_URL=postgres://app:pa55w0rd@db:5432/app', 'DATABASE_URL=postgres://app:[REDACTED]@db:5432/app'],
  ['Slack bot token', 'SLACK xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', 'SLACK [REDACTED]'],
  ['Slack webhook', 'https://hooks.slack.com/services/T000/B000/XXXXXXXX', 'https://hooks.slack.com/services/[REDACTED]'],
  ['JWT', `id_token ${JWT} end`, 'id_token [REDACTED] end'],
  ['Google API key', 'key AIzaSyA-0123456789abcdefghijklmnopqrstu', 'key [REDACTED]'],
];

describe('redact', () => {
  for (const [name, input, expected] of CASES) {
    it(name, () => assert.equal(redact(input), expected));
  }

  it('replaces a PEM private key block, also one cut off by the end of the text', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\n/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n-----END RSA PRIVATE KEY-----';
    assert.equal(redact(`key:\n${pem}\ndone`), 'key:\n-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\n-----END RSA PRIVATE KEY-----\ndone');
    assert.equal(redact('-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU'), '-----BEGIN OPENSSH PRIVATE KEY-----\n[REDACTED]\n-----END OPENSSH PRIVATE KEY-----');
    assert.equal(redact('-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----'), '-----BEGIN PRIVATE KEY-----\n[REDACTED]\n-----END PRIVATE KEY-----');
  });

  it('leaves ordinary output alone', () => {
    const plain = [
      '  12 passing (30ms)',
      'Tests:       1 failed, 12 passed, 13 total',
      'https://github.com/owner/repo/pull/12',
      'error TS2322: Type "string" is not assignable to type "number".',
      'The bearer of bad news arrived.',
      'max tokens reached; see --help',
      'user@example.com wrote: ok',
      'ssh git@github.com:owner/repo.git',
      'Password: ',
      'Password:\nnext line stays',
      'auth token:\n  - step one',
      'a public key: -----BEGIN PUBLIC KEY-----',
      'docker run -u 1000:1000 node:20 npm test',
      'sort -u names.txt',
    ];
    for (const line of plain) assert.equal(redact(line), line);
  });

  it('is idempotent', () => {
    for (const [, input] of CASES) {
      const once = redact(input);
      assert.equal(redact(once), once);
    }
  });
});
