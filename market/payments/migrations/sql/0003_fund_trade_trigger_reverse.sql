
DROP TRIGGER IF EXISTS payments_fund_trade ON market_trade;
DROP FUNCTION IF EXISTS payments_fund_trade();
