/**
 * One run of the guide's stories: a fresh demo (sandbox seeded with seed 1, no simulator, the docs
 * clock), Chromium on the playground, then every story in English and in Spanish, each on its own
 * two minutes of the made-up timeline, writing `<out>/<lang>/images/<picture>.png`.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startDemo, type RunningDemo } from '../demo.js';
import { silentLogger } from '../log.js';
import { BOT_DIR, type BotProcess } from '../stack.js';
import { loadCatalogues } from './catalogue.js';
import { CLOCK_ACK, DocsClock } from './clock.js';
import { GuidePage, STEP_MS, type Lang } from './page.js';
import { PictureTaker, type Story } from './story.js';
import { STORIES } from './stories/index.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const LANGS: readonly Lang[] = ['en', 'es'];

/** The first instant of the made-up timeline: the demo is seeded then; the stories follow. */
export const TIMELINE_START = Date.UTC(2025, 5, 12, 9, 0, 0);
/**
 * Made-up time between two stories: longer than the API's rate-limit window (60 s), so no window a
 * story opened is still open when the next one starts, however fast the machine.
 */
const STORY_SPACING = 2 * 60_000;
/** How fast made-up time runs while the demo starts: the seed lands on TIMELINE_START to the millisecond. */
const STARTUP_RATE = 1 / 10_000;

/** Pictures at 1× pixels: small files; what a 1× screen shows. */
const SCALE = 1;
/** Tall enough that the longest answer (two posts with their images) fits without scrolling. */
const VIEWPORT = { width: 1280, height: 2000 };

export interface RunOptions {
  /** Where `<lang>/images/*.png` go; their old PNGs are replaced once every story has succeeded. */
  outDir: string;
  stories?: readonly Story[];
  progress?: (line: string) => void;
}

export interface RunResult {
  written: Record<Lang, string[]>;
}

/** Replaces the PNGs of `outDir` by the run's, once every story has succeeded. */
function publishPictures(staging: string, outDir: string, written: Record<Lang, string[]>): void {
  for (const lang of LANGS) {
    const dir = join(outDir, lang, 'images');
    if (existsSync(dir)) for (const file of readdirSync(dir)) if (file.endsWith('.png')) rmSync(join(dir, file));
    mkdirSync(dir, { recursive: true });
    for (const file of written[lang]) copyFileSync(join(staging, lang, 'images', file), join(dir, file));
  }
}

/** Moves every clock (here, the bot's, the page's) to `at`; resolves once the bot has moved too. */
async function moveClocks(clock: DocsClock, demo: RunningDemo, page: GuidePage, at: number): Promise<void> {
  clock.moveTo(at);
  const bot = demo.stack.bot as BotProcess;
  bot.kill('SIGUSR2');
  await bot.waitForLog((line) => line.msg === CLOCK_ACK && line.virtualAt === at, STEP_MS);
  await page.setTime(at);
}

export async function generateScreenshots(opts: RunOptions): Promise<RunResult> {
  const progress = opts.progress ?? (() => undefined);
  const stories = opts.stories ?? STORIES;
  const catalogues = await loadCatalogues(BOT_DIR);
  const dataDir = mkdtempSync(join(tmpdir(), 'feedbot-docs-'));
  const clock = new DocsClock(TIMELINE_START, join(dataDir, 'clock.json'), STARTUP_RATE);
  const previousNodeOptions = process.env.NODE_OPTIONS;
  // The bot (and deploy-commands) inherit this process's environment: they load the clock first.
  process.env.NODE_OPTIONS = [previousNodeOptions, clock.preload].filter(Boolean).join(' ');
  let demo: RunningDemo | undefined;
  let browser: Browser | undefined;
  let succeeded = false;
  try {
    progress('starting the demo (sandbox, emulator, bot) on a fresh data directory');
    demo = await startDemo({ dataDir: join(dataDir, 'demo'), port: 0, simulateMs: false, seed: 1, logger: silentLogger() });
    if (!demo.autoKey.ok) throw new Error(`the demo could not set its key: ${demo.autoKey.answer}`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--font-render-hinting=none', '--force-color-profile=srgb'],
      timeout: 30_000,
    });
    const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: SCALE, timezoneId: 'UTC', locale: 'en-US', colorScheme: 'dark' });
    const page = new GuidePage(await context.newPage());
    page.page.setDefaultTimeout(STEP_MS);
    page.page.on('crash', () => progress('the page crashed'));
    page.page.on('close', () => progress('the page closed'));
    page.page.on('pageerror', (error) => progress(`page error: ${error.message}`));
    browser.on('disconnected', () => progress('chromium disconnected'));
    await page.open(demo.url, TIMELINE_START);

    const staging = join(dataDir, 'pictures');
    const pictures = new PictureTaker(staging, catalogues);
    let slot = 0;
    // Made-up time the stories skipped (skipTime): every later story starts that much later.
    let skipped = 0;
    const running = demo;
    const skipTime = async (ms: number, from?: number): Promise<number> => {
      const at = from === undefined ? Math.ceil((clock.now() + ms) / 60_000) * 60_000 : from + ms;
      skipped = at - (TIMELINE_START + slot * STORY_SPACING);
      await moveClocks(clock, running, page, at);
      return at;
    };
    for (const story of stories) {
      for (const lang of LANGS) {
        slot++;
        await moveClocks(clock, demo, page, TIMELINE_START + slot * STORY_SPACING + skipped);
        await page.speak(lang);
        progress(`${lang} · ${story.name}`);
        try {
          await story.run(pictures.context(lang, page, demo, skipTime));
        } catch (error) {
          throw new Error(`story “${story.name}” (${lang}) failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
      }
    }
    publishPictures(staging, opts.outDir, pictures.written);
    succeeded = true;
    return { written: pictures.written };
  } finally {
    await browser?.close().catch(() => undefined);
    await demo?.close().catch(() => undefined);
    if (previousNodeOptions === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = previousNodeOptions;
    // A failed run keeps its pictures so far (and the demo's data) for a look.
    if (succeeded) rmSync(dataDir, { recursive: true, force: true });
    else progress(`nothing published; the pictures taken so far are in ${join(dataDir, 'pictures')}`);
  }
}
