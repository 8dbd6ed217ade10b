import RateCard
