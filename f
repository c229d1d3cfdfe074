move hunter-1 2,1 3,1
end
reload
reload
reload
undo
redo
quit
