import { describeFeedApiContract } from './contract-suite.js';
import { fakeFeedApiBackend } from './fake-feed-api.js';

describeFeedApiContract('in-memory fake (MockAgent)', () => fakeFeedApiBackend());
