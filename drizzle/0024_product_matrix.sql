-- Product-matrix form fields (docs/API.md "Product matrix"): `submissions.rows` holds, per matrix field key, the
-- products that were its rows when the visit was checked in (`{<key>: [{product_id, sku, name}]}`), so renaming or
-- deleting a product later leaves a filled matrix readable. NULL until frozen: submissions attached before check-in,
-- and every submission written before this migration (forms then had no matrix field). A form's matrix definition
-- lives in its `fields` JSON; no other column changes.
ALTER TABLE `submissions` ADD `rows` text;
