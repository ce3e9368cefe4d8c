local ok = 0
while true do ok = pcall(function() while true do end end) end
