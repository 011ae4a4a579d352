/**
 * The forwarding service's posts in the playground, in Chromium: the demo posts each post the
 * sandbox forwards into its feed's channel through the service's webhook, as the real service
 * does, so the guide's step works on the page: right-click a post in a channel → Apps → Feed of
 * this post opens the card of the feed that forwarded it. The card's Posts and Delete answers
 * are then followed into view, as the answer to a typed command is.
 *
 * The demo forwards a round at start and none after (its timer is an hour); further rounds run
 * on demand. Like playground.test.ts: skipped locally without Chromium, required in CI.
 */
import type { APIMessage } from 'discord-api-types/v10';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_GUILD_ID, type FeedRecord } from '@feedbot/sandbox';
import { FORWARDER_WEBHOOK, type RunningDemo } from '../src/demo.js';
import { CHROMIUM, EPHEMERAL, HAVE_CHROMIUM, openDemoInChromium, type DemoInChromium, type PlaygroundPage } from './playground-page.js';

if (!HAVE_CHROMIUM && !process.env.CI) {
  console.warn(`[forwarded-posts.test] skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
}

const HOUR = 3_600_000;
/** The card of the seed's feed #1, @nasa, forwarding into #news. */
const CARD_TITLE = 'Feed #1 · @nasa';

describe.skipIf(!HAVE_CHROMIUM && !process.env.CI)('the forwarding service’s posts and the feed card in Chromium', () => {
  let session: DemoInChromium | undefined;
  let demo: RunningDemo;
  let page: Page;
  let pg: PlaygroundPage;
  let problems: string[] = [];
  let active: FeedRecord[] = [];

  beforeAll(async () => {
    session = await openDemoInChromium('feedbot-forwarded-', { simulateMs: HOUR });
    ({ demo, page, pg, problems } = session);
    active = (await demo.stack.sandbox.admin.listFeeds(DEMO_GUILD_ID)).filter((f) => f.estado === 'activo');
  }, 120_000);

  afterAll(() => session?.close(), 60_000);

  /** @nasa's forwarded posts in #news, oldest first. */
  const nasaPosts = () => pg.posts().filter({ has: page.locator('discord-embed[embed-title^="@nasa · "]') });
  /** The private card opened last. */
  const card = () => page.locator(`#log > discord-message${EPHEMERAL}`).filter({ has: page.locator(`discord-embed[embed-title="${CARD_TITLE}"]`) }).last();

  it('from the start, each active feed’s channel holds a post the service forwarded through its webhook', async () => {
    expect(active.length).toBeGreaterThan(0);
    const { posts } = (await fetch(`${demo.url}/api/posts`).then((r) => r.json())) as { posts: APIMessage[] };
    expect(posts.map((p) => p.channel_id).sort()).toEqual(active.map((f) => f.canalId).sort());
    for (const post of posts) {
      expect(post).toMatchObject({ webhook_id: FORWARDER_WEBHOOK.id, author: { username: FORWARDER_WEBHOOK.name, bot: true } });
      expect(post.embeds[0]?.url).toMatch(new RegExp(`^${demo.stack.sandbox.url}/p/[0-9A-Za-z]{11}$`));
    }
    // #news opens first: @nasa's post (the paused @spacex forwards nothing), by the webhook, its picture through the media proxy.
    await expect.poll(() => nasaPosts().count()).toBe(1);
    await expect(nasaPosts().getAttribute('author')).resolves.toBe(FORWARDER_WEBHOOK.name);
    await expect(nasaPosts().locator('discord-embed').getAttribute('image')).resolves.toMatch(/^\/sandbox\/media\/[0-9A-Za-z]{11}\.png$/);
    // Posts do not hide the channel's welcome and its commands to try.
    await expect(page.locator('#welcome').isVisible()).resolves.toBe(true);
    await pg.shot('30-forwarded-post');
  });

  it('the next round’s posts arrive live, marking the other channels unread', async () => {
    const posted = await demo.forwardPosts({ everyFeed: true });
    expect(posted.map((m) => m.channel_id).sort()).toEqual(active.map((f) => f.canalId).sort());
    await expect.poll(() => nasaPosts().count()).toBe(2);
    const elsewhere = new Set(posted.map((m) => m.channel_id));
    elsewhere.delete(active.find((f) => f.cuenta === 'nasa')!.canalId);
    expect(elsewhere.size).toBeGreaterThan(0);
    await pg.channel('media').and(page.locator('[data-unread]')).waitFor();
  });

  it('right-click a forwarded post → Apps → Feed of this post: the card of the feed that forwarded it', async () => {
    await nasaPosts().last().click({ button: 'right' });
    const menu = page.getByTestId('message-menu');
    await menu.getByRole('menuitem', { name: 'Apps' }).hover();
    await menu.getByRole('menuitem', { name: 'Feed of this post' }).click();
    await card().locator('discord-button', { hasText: 'Delete' }).waitFor();
    await expect(card().locator('discord-button').evaluateAll((nodes) => nodes.map((n) => n.textContent?.trim()))).resolves.toEqual(['Posts', 'Delete']);
    await expect.poll(() => pg.inView(card())).toBe(true);
    await pg.shot('31-forwarded-post-card');
  });

  /**
   * Scrolls the card's `label` button into view (the view then far above the end), presses it
   * and resolves with the message its answer matches; the view must have followed it.
   */
  async function pressOnCardFromAbove(label: string, answer: Locator): Promise<void> {
    const button = card().locator('discord-button', { hasText: label });
    await button.scrollIntoViewIfNeeded();
    await expect.poll(() => pg.fromBottom()).toBeGreaterThan(1000);
    const before = await answer.count();
    await button.click();
    await expect.poll(() => answer.count()).toBe(before + 1);
    // The new answer is the last of the card's conversation, the last in the log: the view stays
    // with it to its end, as after a typed command.
    await expect.poll(() => pg.fromBottom()).toBeLessThan(80);
    await expect(pg.inView(answer.last())).resolves.toBe(true);
  }

  it('the card’s Posts answer is followed into view, from the end and from far above it', async () => {
    const answer = page.locator(`#log > discord-message${EPHEMERAL}`).filter({ hasText: 'Latest posts of feed #1' });
    await card().locator('discord-button', { hasText: 'Posts' }).click();
    await answer.locator('discord-embed').first().waitFor();
    await expect.poll(() => pg.fromBottom()).toBeLessThan(80);
    // Its ten posts stand between the card and the end now.
    await pressOnCardFromAbove('Posts', answer);
    await pg.shot('32-card-posts-followed');
  });

  it('the card’s Delete answer (its confirmation) is followed into view from far above', async () => {
    await pressOnCardFromAbove('Delete', page.locator(`#log > discord-message${EPHEMERAL}`).filter({ has: page.locator('discord-embed[embed-title="Delete feed #1?"]') }));
    await pg.shot('33-card-delete-followed');
  });

  it('loaded every page resource and image without an error, and posted nothing Discord would refuse', () => {
    expect(problems).toEqual([]);
    expect(demo.stack.emulator.violations).toEqual([]);
  });
});
