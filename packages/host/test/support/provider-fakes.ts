import { startFakeAnthropic, startFakeGoogle, startFakeOpenAI, type FakeUpstream } from '@gengate/testing';

/** The keys the spawned host is configured with (fake values: the fakes only check that one is sent). */
export const FAKE_KEYS = {
  OPENAI_API_KEY: 'sk-fake-openai-e2e-0123456789',
  ANTHROPIC_API_KEY: 'sk-ant-fake-e2e-0123456789',
  GOOGLE_GENERATIVE_AI_API_KEY: 'AIzaFakeGoogleE2E0123456789',
  FAKECOMPAT_API_KEY: 'sk-fakecompat-e2e-0123456789',
} as const;

/** Every provider setting blank: the host then runs with no real provider configured, whatever the test's environment holds. */
export const NO_PROVIDER_SETTINGS: NodeJS.ProcessEnv = {
  OPENAI_API_KEY: '',
  OPENAI_BASE_URL: '',
  ANTHROPIC_API_KEY: '',
  ANTHROPIC_BASE_URL: '',
  GOOGLE_GENERATIVE_AI_API_KEY: '',
  GOOGLE_BASE_URL: '',
  OPENAI_COMPATIBLE_PROVIDERS: '',
};

export interface ProviderFakes {
  readonly openai: FakeUpstream;
  readonly anthropic: FakeUpstream;
  readonly google: FakeUpstream;
  /** An OpenAI-compatible server (OpenRouter-like: reports its cost), declared as provider `fakecompat`. */
  readonly compat: FakeUpstream;
  /** The settings that point a spawned gengate at the fakes. */
  readonly env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** The declaration of the `fakecompat` provider: one echo model and one that the fake always refuses. */
export function compatDeclaration(baseURL: string, apiKeyEnv: string | null = 'FAKECOMPAT_API_KEY') {
  return [
    {
      id: 'fakecompat',
      name: 'Fake compatible server',
      baseURL,
      ...(apiKeyEnv ? { apiKeyEnv } : {}),
      models: [
        {
          id: 'echo',
          upstreamModel: 'vendor/echo-1',
          name: 'Echo 1',
          description: 'An OpenAI-compatible fake model.',
          capabilities: { maxOutputTokens: 4_096, defaultMaxTokens: 256 },
          pricing: { inputPerMillionTokens: 200_000, outputPerMillionTokens: 600_000 },
          priceSource: { url: 'https://example.com/fakecompat/pricing', retrievedOn: '2026-11-23' },
        },
        {
          id: 'always-refuse',
          upstreamModel: 'vendor/always-refuse',
          name: 'Always refuse',
          description: 'Refused by the fake under its content policy: a deterministically failing model.',
          capabilities: { maxOutputTokens: 64 },
          pricing: { inputPerMillionTokens: 200_000, outputPerMillionTokens: 600_000 },
          priceSource: { url: 'https://example.com/fakecompat/pricing', retrievedOn: '2026-11-23' },
        },
      ],
    },
  ];
}

export async function startProviderFakes(): Promise<ProviderFakes> {
  const [openai, anthropic, google, compat] = await Promise.all([
    startFakeOpenAI(),
    startFakeAnthropic(),
    startFakeGoogle(),
    startFakeOpenAI({ prefix: '/compat/v1', reportCost: { microUsdPerToken: 1 }, refusingModels: ['vendor/always-refuse'] }),
  ]);
  return {
    openai,
    anthropic,
    google,
    compat,
    env: {
      ...FAKE_KEYS,
      OPENAI_BASE_URL: `${openai.url}/v1`,
      ANTHROPIC_BASE_URL: `${anthropic.url}/v1`,
      GOOGLE_BASE_URL: `${google.url}/v1beta`,
      OPENAI_COMPATIBLE_PROVIDERS: JSON.stringify(compatDeclaration(`${compat.url}/compat/v1`)),
    },
    async close() {
      await Promise.all([openai.close(), anthropic.close(), google.close(), compat.close()]);
    },
  };
}
