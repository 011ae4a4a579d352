/**
 * The guide's page on what feedbot watches by itself: the weekly digest (its preview), the
 * confirmation of `/feedbot forget` (cancelled: the later stories need the key), and a health
 * sweep's post in the audit channel. The sweep story skips made-up time instead of changing the
 * demo's HEALTH_SWEEP_SECONDS: a shorter interval would sweep during every other story too (posts
 * in the audit channel, requests out of the key's budget) and change their pictures.
 */
import { DEMO_GUILD_ID } from '@feedbot/sandbox';
import type { RunningDemo } from '../../demo.js';
import type { Story } from '../story.js';
import { AUDIT_CHANNEL, chooseAuditChannel } from './audit.js';

/** The demo's HEALTH_SWEEP_SECONDS: the bot's default (6 hours). */
const SWEEP_INTERVAL_MS = 21_600 * 1000;
/** One interval and a minute: every server's slot falls inside, so the next tick sweeps each once. */
const SKIP_MS = SWEEP_INTERVAL_MS + 60_000;
/** The scheduler ticks every hundredth of the interval, at most 30 s: a sweep starts within that. */
const SWEEP_WAIT_MS = 60_000;
/** How long after the sweep the status is asked for. */
const STATUS_AFTER_MS = 30 * 60_000 + 30_000;

/** Resolves once the sandbox has answered the demo server's next request (the sweep's GET /feeds). */
async function nextRequest(demo: RunningDemo, before: number): Promise<void> {
  const deadline = Date.now() + SWEEP_WAIT_MS;
  while (demo.stack.sandbox.requests.total(DEMO_GUILD_ID) <= before) {
    if (Date.now() > deadline) throw new Error(`no health sweep reached the sandbox within ${SWEEP_WAIT_MS / 1000} s after skipping an interval`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export const watchingStories: Story[] = [
  {
    name: 'the weekly digest',
    async run({ page, picture }) {
      const preview = await page.run('feedbot digest preview');
      await picture(await preview.answer(), 'digest-preview', { says: ['digest.title', 'digest.field.posts', 'digest.field.mostActive', 'digest.field.feeds'] });
    },
  },
  {
    name: 'forgetting the server, cancelled',
    async run({ page, picture, text }) {
      const forget = await page.run('feedbot forget');
      const confirm = await forget.answer();
      await confirm.locator('discord-button[type="destructive"]').waitFor();
      await picture(confirm, 'forget-confirm', { says: ['forget.title', 'forget.button.delete', 'forget.button.cancel'] });
      await forget.press(text('forget.button.cancel'));
      await forget.waitForText(text('forget.cancelled'));
    },
  },
  {
    name: 'a health check finds a paused feed',
    async run({ demo, page, picture, skipTime, text }) {
      // Posts speak the language of the admin who chose the channel.
      await chooseAuditChannel(page);
      const admin = demo.stack.sandbox.admin;
      const feed = (await admin.listFeeds(DEMO_GUILD_ID)).find((f) => f.estado === 'activo');
      if (!feed) throw new Error('the seed has no active feed to pause');

      // A first sweep records how things are (a baseline, or whatever changed since the last one).
      let before = demo.stack.sandbox.requests.total(DEMO_GUILD_ID);
      await skipTime(SKIP_MS);
      await nextRequest(demo, before);

      // The feed service pauses the feed; the next sweep posts it, with no command run.
      await admin.pauseFeed(DEMO_GUILD_ID, feed.id);
      before = demo.stack.sandbox.requests.total(DEMO_GUILD_ID);
      const swept = await skipTime(SKIP_MS);
      await nextRequest(demo, before);
      await page.openChannel(AUDIT_CHANNEL);
      const title = text('sweep.feedInactive.title').replace('{id}', String(feed.id));
      await picture(await page.post(title), 'sweep-alert-paused', { says: ['sweep.feedInactive.title', 'sweep.feedInactive.description', 'sweep.footer'], shows: [`#${feed.id}`] });
      await page.openChannel('news');

      // Half an hour later (the next sweep is further away): the sweep ran 0–60 s after `swept`
      // (the scheduler ticks every 30 s), so at 30.5 minutes the page shows "30 minutes ago"
      // whichever second it ran at.
      await skipTime(STATUS_AFTER_MS, swept);
      const status = await page.run('feedbot audit-channel status');
      await picture(await status.answer(), 'audit-channel-status-checks', { says: ['audit.status.channel', 'sweep.status.field'], shows: [AUDIT_CHANNEL] });

      // Put it back: the next sweep (in the other language's story) reports it active again.
      await admin.resumeFeed(DEMO_GUILD_ID, feed.id);
    },
  },
];
