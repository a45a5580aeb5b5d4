-- Visitor tokens say how far their identity was vouched for. A token of an identity the
-- customer's site named without a signature (verification off) carries this epoch; turning
-- verification on moves it, so every such token issued before is refused from then on, even
-- if verification is turned off again within the token's hour.
ALTER TABLE public.widget_sites
    ADD COLUMN identity_epoch integer NOT NULL DEFAULT 0;
