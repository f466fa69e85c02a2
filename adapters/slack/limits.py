"""Slack's documented Block Kit limits, in characters, checked AFTER escaping (an `&amp;` counts five).

- Blocks: "You can include up to 50 blocks in each message" (https://docs.slack.dev/reference/block-kit/blocks).
- Text object: `text` is 1 to 3000 characters
  (https://docs.slack.dev/reference/block-kit/composition-objects/text-object); a section's `text` is at most
  3000, each of its at most 10 `fields` 2000 (https://docs.slack.dev/reference/block-kit/blocks/section-block).
- Header block: plain_text of at most 150 (https://docs.slack.dev/reference/block-kit/blocks/header-block).
- Context block: at most 10 elements (https://docs.slack.dev/reference/block-kit/blocks/context-block).
- Actions block: at most 25 elements (https://docs.slack.dev/reference/block-kit/blocks/actions-block).
- Button: plain_text of at most 75, `action_id` at most 255, `value` at most 2000 (we keep ours under 255 too)
  (https://docs.slack.dev/reference/block-kit/block-elements/button-element).
- `block_id`: at most 255, unique in the message.
- Top-level `text`: Slack truncates messages over 40,000 characters
  (https://api.slack.com/changelog/2018-04-truncating-really-long-messages); the loopback fake answers
  `msg_too_long` past that, and `invalid_blocks` for any block over the limits above, as Slack does.

Not documented, and so not enforced by the fake: chat.postMessage also refuses blocks whose text adds up to
roughly 12,000 characters with `msg_blocks_too_long` (https://github.com/slackapi/bolt-js/issues/2509).
"""

from __future__ import annotations

BLOCKS = 50
HOME_BLOCKS = 100
"""A Home tab or modal view: "Up to 100 blocks" (https://docs.slack.dev/reference/views/home-tab-view)."""
ALT_TEXT = 1000
"""files.getUploadURLExternal `alt_txt`: "Description of image for screen-reader", at most 1000 characters."""
TEXT_OBJECT = 3000
SECTION_TEXT = 3000
SECTION_FIELDS = 10
SECTION_FIELD_TEXT = 2000
HEADER_TEXT = 150
CONTEXT_ELEMENTS = 10
ACTIONS_ELEMENTS = 25
BUTTON_TEXT = 75
ACTION_ID = 255
BUTTON_VALUE = 255
"""Slack allows 2000; the brief for this bot asks for 255, which every answer button keeps far below."""
BUTTON_VALUE_DOCUMENTED = 2000
BLOCK_ID = 255
MESSAGE_TEXT = 40_000
