import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig, SETTINGS } from '../src/config.js';
import { ConfigError } from '../src/errors.js';

const ENV = {
  GIFTCARD_API_URL: 'https://gc.example.com/',
  GIFTCARD_CLIENT_ID: 'client-1',
  GIFTCARD_CLIENT_SECRET: 's3cret-gift-value',
  DP_API_URL: 'https://dp.example.com/base',
  DP_CLIENT_ID: 'DP-1',
  DP_CLIENT_SECRET: 's3cret-dp-value',
};

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('reads all six variables, trimming a trailing slash from the URLs', () => {
    const config = loadConfig({}, ENV);
    expect(config.giftcard.baseUrl).toBe('https://gc.example.com');
    expect(config.dp.baseUrl).toBe('https://dp.example.com/base');
    expect(config.dp.clientId).toBe('DP-1');
    expect(config.giftcard.clientSecret.reveal()).toBe('s3cret-gift-value');
  });

  it('lets each flag override its variable', () => {
    const config = loadConfig({ giftcardUrl: 'http://127.0.0.1:9', dpClientSecret: 'flag-secret' }, ENV);
    expect(config.giftcard.baseUrl).toBe('http://127.0.0.1:9');
    expect(config.dp.clientSecret.reveal()).toBe('flag-secret');
  });

  it.each(SETTINGS.map((s) => s.variable))('names %s when it is missing', (variable) => {
    const error = configError(() => loadConfig({}, { ...ENV, [variable]: '' }));
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable} (or --`)).toBe(true);
  });

  it('refuses a URL that is not http(s), or carries credentials', () => {
    expect(configError(() => loadConfig({}, { ...ENV, DP_API_URL: 'ftp://x' })).message).toBe(
      'DP_API_URL (or --dp-url) must start with http:// or https://',
    );
    expect(
      configError(() => loadConfig({}, { ...ENV, GIFTCARD_API_URL: 'https://user:pw@gc.example.com' })).variable,
    ).toBe('GIFTCARD_API_URL');
    expect(configError(() => loadConfig({}, { ...ENV, GIFTCARD_API_URL: 'not a url' })).variable).toBe(
      'GIFTCARD_API_URL',
    );
  });

  it('refuses a malformed secret without ever showing it', () => {
    const error = configError(() => loadConfig({}, { ...ENV, DP_CLIENT_SECRET: 'with space secret' }));
    expect(error.variable).toBe('DP_CLIENT_SECRET');
    expect(error.message).not.toContain('with space');
  });

  it('keeps secrets out of String(), JSON and util.inspect', () => {
    const config = loadConfig({}, ENV);
    for (const text of [String(config.giftcard.clientSecret), JSON.stringify(config), inspect(config, { depth: 5 })]) {
      expect(text).not.toContain('s3cret');
    }
  });
});
