import { describe, expect, it } from 'vitest';
import { malformedTargetReason } from './malformed-target';

describe('malformedTargetReason', () => {
  const malformed: Record<string, [method: string, target: string, reason: RegExp]> = {
    'a bracket read as a host (//[)': ['GET', '//[', /"\/\/"/],
    'a percent sign read as a host (//%)': ['GET', '//%', /"\/\/"/],
    'a port over 65535 read as a host (//:99999)': ['GET', '//:99999', /"\/\/"/],
    'a backslash read as a second slash': ['GET', '/\\evil.example/v1/models', /"\/\/"/],
    'absolute form with a bracket for a host': ['GET', 'http://[', /absolute-form/],
    'absolute form with a port over 65535': ['GET', 'http://127.0.0.1:99999/', /absolute-form/],
    'absolute form with an invalid IPv4 address': ['GET', 'http://1.2.3.256/', /absolute-form/],
    'absolute form with an empty host': ['GET', 'http://:80/', /absolute-form/],
    'absolute form with an invalid punycode label': ['GET', 'http://xn--a/', /absolute-form/],
    'absolute form with an empty authority (read two ways)': ['GET', 'http:///evil.example/', /absolute-form/],
    'a tab, which URL parsers drop (/\t/x reads as //x)': ['GET', '/\t/evil.example/', /control character/],
    'a space': ['GET', '/a b', /control character/],
    'absolute form with another scheme': ['GET', 'ftp://127.0.0.1/', /must be a path/],
    'no leading slash': ['GET', 'v1/models', /must be a path/],
    'empty': ['GET', '', /must be a path/],
    '* for GET': ['GET', '*', /only for OPTIONS/],
    'a lone percent sign': ['GET', '/v1/models/%', /percent-encoding/],
    'a percent sign before non-hex': ['GET', '/v1/%zz', /percent-encoding/],
    'a truncated UTF-8 sequence': ['GET', '/v1/models/%E0%A4%A', /percent-encoding/],
    'a byte that is not UTF-8': ['GET', '/v1/models/%FF', /percent-encoding/],
    'an invalid percent-encoding in the query': ['GET', '/api/tools/brave_search?q=%E0%A4%A', /percent-encoding/],
    'an invalid percent-encoding in absolute form': ['GET', 'http://127.0.0.1/v1/%C3', /percent-encoding/],
  };
  for (const [name, [method, target, reason]] of Object.entries(malformed)) {
    it(`refuses ${name}`, () => expect(malformedTargetReason(method, target)).toMatch(reason));
  }

  const wellFormed: Record<string, [method: string, target: string]> = {
    'a plain path': ['GET', '/v1/models'],
    'a path and query with valid encodings': ['GET', '/v1/models/caf%C3%A9?q=a+b%20c&x=%2F'],
    'characters browsers send unencoded': ['GET', "/a[b]|c^d'e!f~g*h:i@j"],
    'a fragment': ['GET', '/index.html#top'],
    'dot segments (the proxies judge those themselves)': ['GET', '/x/../index.html'],
    'absolute form': ['GET', 'http://127.0.0.1:8080/v1/models'],
    'absolute form, https, uppercase scheme, IPv6': ['GET', 'HTTPS://[::1]:443/'],
    '* for OPTIONS': ['OPTIONS', '*'],
  };
  for (const [name, [method, target]] of Object.entries(wellFormed)) {
    it(`accepts ${name}, which then parses and decodes without throwing`, () => {
      expect(malformedTargetReason(method, target)).toBeNull();
      const url = new URL(target, 'http://server');
      expect(() => decodeURIComponent(url.pathname + url.search)).not.toThrow();
    });
  }
});
