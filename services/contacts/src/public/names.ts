import { randomInt } from 'node:crypto';

const ADJECTIVES = ['silent', 'bold', 'calm', 'bright', 'misty', 'quiet', 'swift', 'gentle', 'lively', 'proud', 'wild', 'young', 'ancient', 'autumn', 'billowing', 'cool', 'crimson', 'damp', 'dawn', 'delicate', 'divine', 'dry', 'falling', 'floral', 'fragrant', 'frosty', 'green', 'hidden', 'holy', 'icy', 'late', 'lingering', 'little', 'long', 'muddy', 'nameless', 'old', 'patient', 'polished', 'purple', 'red', 'restless', 'rough', 'shy', 'snowy', 'solitary', 'sparkling', 'spring', 'still', 'summer', 'throbbing', 'twilight', 'wandering', 'weathered', 'white', 'winter', 'withered'];
const NOUNS = ['moon', 'river', 'meadow', 'forest', 'breeze', 'dawn', 'dew', 'field', 'fire', 'flower', 'firefly', 'feather', 'grass', 'haze', 'hill', 'lake', 'leaf', 'morning', 'mountain', 'night', 'paper', 'pine', 'pond', 'rain', 'resonance', 'sea', 'shadow', 'shape', 'silence', 'sky', 'smoke', 'snow', 'sound', 'star', 'sun', 'sunset', 'surf', 'thunder', 'tree', 'violet', 'voice', 'water', 'waterfall', 'wave', 'wildflower', 'wind', 'wood'];

/** A readable name for a visitor who gave none (Chatwoot uses Haikunator: "silent-moon-123"). */
export function visitorName(): string {
  return `${ADJECTIVES[randomInt(ADJECTIVES.length)]}-${NOUNS[randomInt(NOUNS.length)]}-${randomInt(100, 1000)}`;
}
