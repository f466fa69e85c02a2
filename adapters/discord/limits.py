"""Discord's documented limits, in characters (Python `len`, as Discord's API counts them), checked AFTER escaping.

Embed limits: https://discord.com/developers/docs/resources/message#embed-object-embed-limits ("Embed Limits":
title 256, description 4096, up to 25 fields, field name 256, field value 1024, footer text 2048, author name 256;
"the combined sum of characters in all title, description, field.name, field.value, footer.text, and author.name
fields across all embeds attached to a message must not exceed 6000 characters"); up to 10 embeds a message and
2000 characters of content (https://discord.com/developers/docs/resources/message#create-message).
Buttons: https://discord.com/developers/docs/components/reference#button (label 80, custom_id 100); an action
row holds up to 5 buttons and a message up to 5 action rows, so 25 buttons
(https://discord.com/developers/docs/components/reference#action-row).
The loopback fake (tests/fakes/discord_api.py) refuses anything over these with a 400 / code 50035, as Discord does.
"""

from __future__ import annotations

TITLE = 256
DESCRIPTION = 4096
FIELDS = 25
FIELD_NAME = 256
FIELD_VALUE = 1024
FOOTER = 2048
AUTHOR_NAME = 256
EMBED_TOTAL = 6000
"""Per MESSAGE: the sum over all of its embeds, not per embed."""
EMBEDS = 10
CONTENT = 2000

BUTTON_LABEL = 80
CUSTOM_ID = 100
BUTTONS_PER_ROW = 5
ROWS = 5
COMPONENTS = BUTTONS_PER_ROW * ROWS
