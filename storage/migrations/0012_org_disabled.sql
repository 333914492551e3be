-- Provisioning fails closed (docs/guarantees.md#provisioning-fails-closed): an org the provisioning file no
-- longer names is disabled, and its API keys and integrations are deleted. Its incidents
-- stay, as history; naming it again enables it.
ALTER TABLE org ADD COLUMN disabled_at timestamptz;
